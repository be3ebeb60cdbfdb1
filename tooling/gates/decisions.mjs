#!/usr/bin/env node
// The decision log's checks (decision 0086): every record in docs/decisions and every measurement note
// in docs/benchmarks/notes starts with a `Status:` line; a record that says it supersedes or reverses
// another is named by that other's status line too (both sides); and the index in
// docs/decisions/README.md (between its markers) is the one this module renders from the files.
// `node tooling/gates/decisions.mjs --write` rewrites the index after adding or changing a record.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const DECISIONS = 'docs/decisions';
export const NOTES = 'docs/benchmarks/notes';
export const BEGIN = '<!-- index:begin (generated: node tooling/gates/decisions.mjs --write) -->';
export const END = '<!-- index:end -->';

const STATUS = /^Status: (.+)$/;
const KINDS = { [DECISIONS]: /^(accepted|superseded by)\b/, [NOTES]: /^measurement note\b/ };

/** The numbered records of one directory: number, file, title (without the number) and status line. */
export function readRecords(root, dir) {
  const path = join(root, dir);
  if (!existsSync(path)) return [];
  return readdirSync(path)
    .filter((file) => /^\d{4}-.+\.md$/.test(file))
    .sort()
    .map((file) => {
      const lines = readFileSync(join(path, file), 'utf8').split('\n');
      const title = (lines[0] ?? '').replace(/^#\s+(\d{4}\s+—\s+)?/, '').trim();
      const first = lines.slice(1).find((line) => line.trim() !== '') ?? '';
      return { number: file.slice(0, 4), file, dir, title, status: STATUS.exec(first)?.[1] };
    });
}

/** The record numbers a status names after a verb of `verbs`, up to the clause's end (`;`). */
function named(status, verbs) {
  const numbers = new Set();
  for (const match of status.matchAll(new RegExp(`\\b(?:${verbs})\\b([^;]*)`, 'gi')))
    for (const number of match[1].matchAll(/\b\d{4}\b/g)) numbers.add(number[0]);
  return numbers;
}

/** Problems of the log: records without a status line of their kind, and one-sided supersessions or reversals. */
export function checkRecords(records) {
  const problems = [];
  const byNumber = new Map(records.map((record) => [record.number, record]));
  for (const record of records) {
    const where = `${record.dir}/${record.file}`;
    if (record.status === undefined) problems.push(`${where}: no "Status:" line after its title`);
    else if (!KINDS[record.dir].test(record.status))
      problems.push(
        `${where}: status "${record.status}" should start with ${record.dir === NOTES ? '"measurement note"' : '"accepted" or "superseded by"'}`,
      );
  }
  for (const record of records) {
    if (record.status === undefined) continue;
    const sides = [
      [named(record.status, 'supersedes|reverses'), 'is superseded or reversed (in part) by'],
      [named(record.status, 'superseded|reversed'), 'supersedes or reverses (in part)'],
    ];
    for (const [numbers, says] of sides) {
      for (const number of numbers) {
        const other = byNumber.get(number);
        if (other === undefined || other === record || other.status === undefined) continue;
        if (!new RegExp(`\\b${record.number}\\b`).test(other.status))
          problems.push(`${other.dir}/${other.file}: its status line should say it ${says} ${record.number}, as ${record.number}'s says`);
      }
    }
  }
  return problems;
}

/** A status line's relative links, rewritten from its record's directory to docs/decisions. */
function rebase(status, dir) {
  return status.replace(/\]\(([^)#\s]+\.md)(#[^)]*)?\)/g, (_, target, hash = '') =>
    /^[a-z]+:/.test(target) ? `](${target}${hash})` : `](${relative(DECISIONS, join(dir, target))}${hash})`,
  );
}

/** The index tables: the records, then the measurement notes. */
export function renderIndex(records) {
  const row = (r) => `| [${r.number}](${relative(DECISIONS, join(r.dir, r.file))}) | ${r.title} | ${rebase(r.status ?? '(none)', r.dir)} |`;
  const header = (first) => [`| ${first} | title | status |`, '| --- | --- | --- |'];
  return [
    '## Records',
    '',
    ...header('record'),
    ...records.filter((r) => r.dir === DECISIONS).map(row),
    '',
    '## Measurement notes',
    '',
    ...header('note'),
    ...records.filter((r) => r.dir === NOTES).map(row),
  ].join('\n');
}

/** The index file's text with the generated part replaced (markers required). */
export function withIndex(readme, index) {
  const begin = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (begin === -1 || end < begin) throw new Error(`${DECISIONS}/README.md: expected "${BEGIN}" followed by "${END}"`);
  return `${readme.slice(0, begin + BEGIN.length)}\n\n${index}\n\n${readme.slice(end)}`;
}

/** Every problem of the decision log under `root`, the index being out of date included. */
export function checkDecisionLog(root) {
  const records = [...readRecords(root, DECISIONS), ...readRecords(root, NOTES)];
  const problems = checkRecords(records);
  const readmePath = join(root, DECISIONS, 'README.md');
  const readme = existsSync(readmePath) ? readFileSync(readmePath, 'utf8') : '';
  try {
    if (withIndex(readme, renderIndex(records)) !== readme)
      problems.push(`${DECISIONS}/README.md: the index is out of date (node tooling/gates/decisions.mjs --write)`);
  } catch (error) {
    problems.push(error.message);
  }
  return { records: records.length, problems };
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--write')) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const readmePath = join(root, DECISIONS, 'README.md');
  const records = [...readRecords(root, DECISIONS), ...readRecords(root, NOTES)];
  writeFileSync(readmePath, withIndex(readFileSync(readmePath, 'utf8'), renderIndex(records)));
  for (const problem of checkRecords(records)) console.error(`  ✗ ${problem}`);
  console.log(`wrote the index of ${records.length} records in ${DECISIONS}/README.md`);
}
