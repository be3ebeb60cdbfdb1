#!/usr/bin/env node
// Packaging gates for every published package: pack (the release dry run), publint --strict,
// arethetypeswrong, no module duplicated across entries, no dead exports, neutral-platform bundles with size budgets, the consumer project,
// the package graph of docs/architecture.md, changesets; the structure gates over packages/*/src: no import circles, no function over
// 150 lines, no file over 500; and the decision log's index and status lines.
// Usage: node tooling/gates/run.mjs [--only=<gate,...>] [--write-sizes]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { measureClientSizes } from './client-size.mjs';
import { checkDecisionLog } from './decisions.mjs';
import { checkDocSamples } from './doc-samples.mjs';
import { findDeadExports } from './dead-exports.mjs';
import { findDuplicateModules } from './duplicate-modules.mjs';
import { ALLOWED_CYCLES, ALLOWED_SIZES } from './structure-allowlist.mjs';
import {
  countTsLines,
  findImportCycles,
  findSizeViolations,
  judgeBenchLines,
  judgeCycles,
  judgeSizes,
  MAX_BENCH_LINES,
  sourceFiles,
} from './structure.mjs';
import { checkPackageGraph } from './package-graph.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const args = new Set(process.argv.slice(2));
const only = [...args]
  .find((a) => a.startsWith('--only='))
  ?.slice(7)
  .split(',');
const enabled = (gate) => !only || only.includes(gate);

/**
 * Browser/edge-safe entries: bundled for the neutral platform, with a gzip budget. `lazy` lists
 * modules the entry loads with a dynamic `import()` on first need: they are budgeted as entries of
 * their own and left out of this one (decision 0017: the client's card verifier). What
 * `{ createA2AClient }` weighs for users is measured apart, from the packed tarballs (CLIENT_SIZES).
 */
export const BROWSER_SAFE_ENTRIES = [
  { pkg: 'a2a-types', entry: '.' },
  { pkg: 'a2a-identity', entry: '.' },
  { pkg: 'a2a-identity', entry: './verify', file: 'verify.js' },
  { pkg: 'a2a-governance', entry: '.' },
  { pkg: 'a2a-routing', entry: '.' },
  { pkg: 'a2a-rulake-artifacts', entry: '.' },
  { pkg: 'a2a-client', entry: '.', lazy: ['@a2aplane/a2a-identity/verify'] },
  // The server's framework-neutral core and its fetch binding (Workers, Deno, Bun): no Node built-in.
  { pkg: 'a2a-server-express', entry: './core', file: 'core.js' },
  { pkg: 'a2a-server-express', entry: './fetch', file: 'fetch.js' },
];

/** The three sizes of `{ createA2AClient }` from the packed tarballs (client-size.mjs, decision 0090). */
const CLIENT_SIZES = {
  initial: '@a2aplane/a2a-client { createA2AClient }: initial download with code splitting',
  oneFile: '@a2aplane/a2a-client { createA2AClient }: one file without code splitting',
  loaded: '@a2aplane/a2a-client { createA2AClient }: everything loaded',
};

const failures = [];
const fail = (gate, message) => {
  failures.push(`[${gate}] ${message}`);
  console.error(`  ✗ ${message}`);
};
const run = (cmd, argv, cwd) => execFileSync(cmd, argv, { cwd, stdio: 'pipe', encoding: 'utf8' });

function publishedPackages() {
  return readdirSync(join(root, 'packages'))
    .map((dir) => ({ dir, path: join(root, 'packages', dir) }))
    .filter(({ path }) => existsSync(join(path, 'package.json')))
    .map((p) => ({ ...p, manifest: JSON.parse(readFileSync(join(p.path, 'package.json'), 'utf8')) }))
    .filter(({ manifest }) => !manifest.private);
}

const packages = publishedPackages();
const bin = (name) => join(here, 'node_modules', '.bin', name);

if (enabled('pack')) {
  console.log('gate: pack (release dry run)');
  const out = join(root, '.pack');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  for (const { dir, path } of packages) {
    try {
      run('pnpm', ['pack', '--pack-destination', out], path);
      console.log(`  ✓ ${dir}`);
    } catch (error) {
      fail('pack', `${dir}: ${String(error.stderr || error.message).trim()}`);
    }
  }
}

if (enabled('publint')) {
  console.log('gate: publint --strict');
  for (const { dir, path } of packages) {
    try {
      const output = run(bin('publint'), ['--strict', '--pack', 'pnpm'], path);
      if (/error|warning/i.test(output)) fail('publint', `${dir}:\n${output}`);
      else console.log(`  ✓ ${dir}`);
    } catch (error) {
      fail('publint', `${dir}:\n${String(error.stdout || '') + String(error.stderr || error.message)}`);
    }
  }
}

if (enabled('attw')) {
  console.log('gate: @arethetypeswrong/cli --pack (node10, node16 CJS/ESM, bundler)');
  for (const { dir, path } of packages) {
    try {
      run(bin('attw'), ['--pack', '.', '--format', 'table-flipped', '--no-emoji'], path);
      console.log(`  ✓ ${dir}`);
    } catch (error) {
      fail('attw', `${dir}:\n${String(error.stdout || '') + String(error.stderr || error.message)}`);
    }
  }
}

if (enabled('duplicates')) {
  console.log('gate: no source module bundled into two entries of one package (shared chunks instead)');
  for (const { dir, path, manifest } of packages) {
    try {
      const duplicates = findDuplicateModules(path, manifest);
      if (duplicates.length === 0) console.log(`  ✓ ${dir}`);
      else fail('duplicates', `${dir}: ${duplicates.map(({ module, entries }) => `${module} in ${entries.join(' and ')}`).join('; ')}`);
    } catch (error) {
      fail('duplicates', `${dir}: ${error.message}`);
    }
  }
}

if (enabled('dead-exports')) {
  console.log('gate: no dead exports (exported by a module, published by no entry, imported by nothing)');
  for (const { dir, path, manifest } of packages) {
    const dead = findDeadExports(path, manifest);
    if (dead.length === 0) console.log(`  ✓ ${dir}`);
    else fail('dead-exports', `${dir}: ${dead.join('; ')}`);
  }
}

if (enabled('bundle')) {
  console.log('gate: neutral-platform bundles and size budgets (minified, gzip -9)');
  const budgets = JSON.parse(readFileSync(join(here, 'size-budgets.json'), 'utf8'));
  const measured = {};
  for (const { pkg, entry, file, lazy } of BROWSER_SAFE_ENTRIES) {
    const entryFile = join(root, 'packages', pkg, 'dist', file ?? 'index.js');
    const base = entry === '.' ? `@a2aplane/${pkg}` : `@a2aplane/${pkg}${entry.slice(1)}`;
    const name = base;
    try {
      const result = await esbuild.build({
        entryPoints: [entryFile],
        bundle: true,
        minify: true,
        format: 'esm',
        platform: 'neutral',
        mainFields: ['module', 'main'],
        conditions: ['import', 'default'],
        external: lazy ?? [],
        write: false,
        logLevel: 'silent',
      });
      const bytes = result.outputFiles[0].contents;
      const gzip = gzipSync(bytes, { level: 9 }).length;
      measured[name] = { minified: bytes.length, gzip };
      const budget = budgets[name];
      const label = lazy ? `${name} (lazily loaded: ${lazy.join(', ')})` : name;
      if (budget === undefined) fail('bundle', `${label}: no size budget in size-budgets.json (gzip ${gzip} B)`);
      else if (gzip > budget) fail('bundle', `${label}: ${gzip} B gzip exceeds its budget of ${budget} B`);
      else console.log(`  ✓ ${label}: ${bytes.length} B min, ${gzip} B gzip (budget ${budget} B)`);
    } catch (error) {
      const messages = error.errors?.map((e) => `${e.text} (${e.location?.file ?? ''})`).join('\n    ') ?? error.message;
      fail('bundle', `${name}: does not bundle for the neutral platform (a Node-only import?):\n    ${messages}`);
    }
  }
  try {
    const sizes = await measureClientSizes(root);
    for (const [key, name] of Object.entries(CLIENT_SIZES)) {
      const gzip = sizes[key];
      measured[name] = { gzip };
      const budget = budgets[name];
      if (budget === undefined) fail('bundle', `${name}: no size budget in size-budgets.json (gzip ${gzip} B)`);
      else if (gzip > budget) fail('bundle', `${name}: ${gzip} B gzip exceeds its budget of ${budget} B`);
      else console.log(`  ✓ ${name}: ${gzip} B gzip (budget ${budget} B)`);
    }
    // Lazy boundaries may cost a little in separate files, never much: at most the one file + 10 %.
    if (sizes.loaded > sizes.oneFile * 1.1)
      fail('bundle', `${CLIENT_SIZES.loaded}: ${sizes.loaded} B gzip is more than the one file (${sizes.oneFile} B) + 10 %`);
  } catch (error) {
    fail('bundle', `@a2aplane/a2a-client { createA2AClient } from the packed tarballs: ${error.message}`);
  }
  writeFileSync(join(here, 'bundle-sizes.json'), `${JSON.stringify(measured, null, 2)}\n`);
}

if (enabled('consumer')) {
  console.log('gate: consumer project against the built declarations (no skipLibCheck)');
  for (const config of ['tsconfig.bundler.json', 'tsconfig.node16.json']) {
    try {
      run(bin('tsc'), ['-p', join('consumer', config)], here);
      console.log(`  ✓ ${config}`);
    } catch (error) {
      fail('consumer', `${config}:\n${String(error.stdout || '') + String(error.stderr || error.message)}`);
    }
  }
}

if (enabled('graph')) {
  console.log('gate: package graph (docs/architecture.md against package.json; private packages in devDependencies only)');
  const errors = checkPackageGraph(root);
  for (const error of errors) fail('graph', error);
  if (errors.length === 0) console.log('  ✓ docs/architecture.md draws every package and dependency; no private package is shipped');
}

if (enabled('docs')) {
  console.log('gate: every ts sample in READMEs and docs/ type-checks');
  const { total, errors } = checkDocSamples();
  if (errors.length > 0) fail('docs', `${errors.length} type errors in doc samples:\n${errors.join('\n')}`);
  else console.log(`  ✓ ${total} samples`);
}

if (enabled('changesets')) {
  console.log('gate: changesets (every package with source has a pending changeset or a release)');
  const changesetDir = join(root, '.changeset');
  const pending = readdirSync(changesetDir)
    .filter((file) => file.endsWith('.md') && file !== 'README.md')
    .map((file) => readFileSync(join(changesetDir, file), 'utf8'));
  for (const { dir, manifest, path } of packages) {
    const named = pending.some(
      (text) => text.split('---')[1]?.includes(`'${manifest.name}'`) || text.split('---')[1]?.includes(`"${manifest.name}"`),
    );
    // A new package has no CHANGELOG.md until its first release.
    const changelog = join(path, 'CHANGELOG.md');
    const released = existsSync(changelog) && /^## \d/m.test(readFileSync(changelog, 'utf8'));
    if (named || released) console.log(`  ✓ ${dir}`);
    else fail('changesets', `${dir}: src changed but no changeset names ${manifest.name} (run \`pnpm changeset\`)`);
  }
  const base = process.env.GATES_BASE;
  if (base) {
    const changed = run('git', ['diff', '--name-only', `${base}...HEAD`], root).split('\n');
    const added = run('git', ['diff', '--name-only', '--diff-filter=A', `${base}...HEAD`, '--', '.changeset'], root);
    for (const { dir, manifest } of packages) {
      const touched = changed.some((file) => file.startsWith(`packages/${dir}/src/`));
      if (touched && !added.includes('.changeset/'))
        fail('changesets', `${dir}: src changed since ${base} without a new changeset (${manifest.name})`);
    }
  }
}

/** Every package under packages/ with a src directory, private ones included. */
const sourcePackages = () =>
  readdirSync(join(root, 'packages'))
    .sort()
    .map((dir) => ({ dir, path: join(root, 'packages', dir) }))
    .filter(({ path }) => existsSync(join(path, 'src')));

/** Prints a structure gate's verdict: failures, then the allowlisted violators still to fix, then fixed ones. */
function reportStructure(gate, { failures: found, toFix, fixed }, what) {
  for (const failure of found) fail(gate, failure);
  if (found.length === 0) console.log(`  ✓ no new ${what}, none grown`);
  if (toFix.length > 0)
    console.log(`  to fix (allowlisted in structure-allowlist.mjs, ${toFix.length}):\n${toFix.map((line) => `    - ${line}`).join('\n')}`);
  for (const entry of fixed) console.log(`  fixed: remove it from structure-allowlist.mjs: ${entry}`);
}

if (enabled('cycles')) {
  console.log('gate: no import circles in packages/*/src (madge; allowlist: structure-allowlist.mjs)');
  const cycles = [];
  for (const { path } of sourcePackages()) cycles.push(...(await findImportCycles(path, root)));
  reportStructure('cycles', judgeCycles(cycles, ALLOWED_CYCLES), 'import circles');
}

if (enabled('sizes')) {
  console.log('gate: no function over 150 lines, no file over 500, in packages/*/src outside generated code; apps/bench under 3,000 lines');
  const violations = sourcePackages().flatMap(({ path }) => findSizeViolations(sourceFiles(join(path, 'src')), root));
  reportStructure('sizes', judgeSizes(violations, ALLOWED_SIZES), 'oversized functions or files');
  const benchLines = countTsLines(join(root, 'apps', 'bench'));
  const benchFailure = judgeBenchLines(benchLines);
  if (benchFailure) fail('sizes', benchFailure);
  else console.log(`  ✓ apps/bench: ${benchLines} lines of TypeScript (budget: under ${MAX_BENCH_LINES})`);
}

if (enabled('decisions')) {
  console.log('gate: the decision log (a Status line in every record and note, supersessions on both sides, the index current)');
  const { records, problems } = checkDecisionLog(root);
  for (const problem of problems) fail('decisions', problem);
  if (problems.length === 0) console.log(`  ✓ ${records} records and notes`);
}

console.log(failures.length === 0 ? '\ngates: all passed' : `\ngates: ${failures.length} failed`);
if (failures.length > 0) {
  for (const failure of failures) console.error(failure.split('\n')[0]);
  process.exit(1);
}
void relative;
