// Extracts every ```ts / ```typescript block from the READMEs and docs/ and type-checks each as
// its own module against the workspace sources. A block that is deliberately a fragment is
// fenced as ```ts nocheck (or any other language).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const out = join(here, '.doc-samples');

function markdownFiles() {
  const files = [join(root, 'README.md')];
  for (const dir of ['docs', 'docs/decisions', 'docs/benchmarks/notes']) {
    const path = join(root, dir);
    if (existsSync(path)) for (const f of readdirSync(path)) if (f.endsWith('.md')) files.push(join(path, f));
  }
  for (const group of ['packages', 'apps']) {
    for (const dir of readdirSync(join(root, group))) {
      const readme = join(root, group, dir, 'README.md');
      if (existsSync(readme)) files.push(readme);
    }
  }
  return files;
}

export function extractSamples() {
  const samples = [];
  for (const file of markdownFiles()) {
    const text = readFileSync(file, 'utf8');
    const pattern = /^```(ts|typescript)([^\n]*)\n([\s\S]*?)^```/gm;
    let index = 0;
    for (const match of text.matchAll(pattern)) {
      index += 1;
      if (/nocheck/.test(match[2])) continue;
      const line = text.slice(0, match.index).split('\n').length;
      samples.push({ file: relative(root, file), line, index, code: match[3] });
    }
  }
  return samples;
}

export function checkDocSamples() {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const samples = extractSamples();
  const names = new Map();
  for (const sample of samples) {
    const name = `${sample.file.replace(/[^a-zA-Z0-9]+/g, '_')}_${sample.index}.ts`;
    names.set(name, sample);
    // `export {}` makes every sample a module, so top-level await and local names never clash.
    writeFileSync(join(out, name), `${sample.code}\nexport {};\n`);
  }
  writeFileSync(
    join(out, 'tsconfig.json'),
    JSON.stringify({
      extends: '../../config/tsconfig.node.json',
      compilerOptions: {
        noUnusedLocals: false,
        noUnusedParameters: false,
        noEmit: true,
        types: ['node'],
        typeRoots: [join(here, 'node_modules', '@types')],
      },
      include: ['*.ts'],
    }),
  );
  try {
    execFileSync(join(here, 'node_modules', '.bin', 'tsc'), ['-p', out], { cwd: here, stdio: 'pipe', encoding: 'utf8' });
    return { total: samples.length, errors: [] };
  } catch (error) {
    const output = String(error.stdout || '') + String(error.stderr || '');
    const errors = output
      .split('\n')
      .filter((line) => /error TS/.test(line))
      .map((line) => {
        const name = basename(line.split('(')[0]);
        const sample = names.get(name);
        return sample ? `${sample.file}:${sample.line} (sample ${sample.index}): ${line.slice(line.indexOf('error'))}` : line;
      });
    return { total: samples.length, errors };
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { total, errors } = checkDocSamples();
  console.log(`${total} samples, ${errors.length} errors`);
  for (const e of errors) console.log(e);
  process.exit(errors.length ? 1 : 0);
}
