import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error -- plain ESM helper without declarations
import { BEGIN, checkDecisionLog, END, renderIndex, withIndex, readRecords } from '../decisions.mjs';

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A fixture log: `files` maps a path under the root to its text; the index is written current unless `stale`. */
function log(files: Record<string, string>, stale = false): string {
  root = mkdtempSync(join(tmpdir(), 'a2a-decisions-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const records = [...readRecords(root, 'docs/decisions'), ...readRecords(root, 'docs/benchmarks/notes')];
  const readme = `# Decisions\n\n${BEGIN}\n${END}\n`;
  writeFileSync(join(root, 'docs/decisions/README.md'), stale ? readme : withIndex(readme, renderIndex(records)));
  return root;
}

const record = (title: string, status?: string): string =>
  `# ${title}\n\n${status === undefined ? '' : `Status: ${status}\n\n`}**Context.** ...\n`;

describe('decisions gate', () => {
  it('passes a log whose records all have a status, supersede on both sides and are indexed', () => {
    log({
      'docs/decisions/0001-one.md': record('0001 — One', 'superseded by [0002](0002-two.md)'),
      'docs/decisions/0002-two.md': record('0002 — Two', 'accepted; supersedes [0001](0001-one.md)'),
      'docs/benchmarks/notes/0003-three.md': record('0003 — Three', 'measurement note'),
    });
    expect(checkDecisionLog(root)).toEqual({ records: 3, problems: [] });
    const index = readFileSync(join(root, 'docs/decisions/README.md'), 'utf8');
    expect(index).toContain('| [0001](0001-one.md) | One | superseded by [0002](0002-two.md) |');
    expect(index).toContain('| [0003](../benchmarks/notes/0003-three.md) | Three | measurement note |');
  });

  it('reports a record without a status line, a status of the wrong kind, and a one-sided supersession', () => {
    log({
      'docs/decisions/0001-one.md': record('0001 — One', 'accepted'),
      'docs/decisions/0002-two.md': record('0002 — Two', 'accepted (supersedes the caps of 0001)'),
      'docs/decisions/0004-four.md': record('0004 — Four'),
      'docs/benchmarks/notes/0003-three.md': record('0003 — Three', 'accepted'),
    });
    expect(checkDecisionLog(root).problems).toEqual([
      'docs/decisions/0004-four.md: no "Status:" line after its title',
      'docs/benchmarks/notes/0003-three.md: status "accepted" should start with "measurement note"',
      "docs/decisions/0001-one.md: its status line should say it is superseded or reversed (in part) by 0002, as 0002's says",
    ]);
  });

  it('reports a reversal named only by the reversed record, and an index that is out of date', () => {
    log(
      {
        'docs/decisions/0001-one.md': record('0001 — One', 'accepted; reversed in part by 0002'),
        'docs/decisions/0002-two.md': record('0002 — Two', 'accepted'),
      },
      true,
    );
    expect(checkDecisionLog(root).problems).toEqual([
      "docs/decisions/0002-two.md: its status line should say it supersedes or reverses (in part) 0001, as 0001's says",
      'docs/decisions/README.md: the index is out of date (node tooling/gates/decisions.mjs --write)',
    ]);
  });
});
