import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { goalTable, kb, ratio, table } from '../lib/format.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

const APP_DIR = fileURLToPath(new URL('../..', import.meta.url));
const PACKAGES = ['a2a-types', 'a2a-identity', 'a2a-governance', 'a2a-routing', 'a2a-rulake-artifacts', 'a2a-client'];
const OURS_ENTRY = "export { createA2AClient } from '@a2aplane/a2a-client';";
const OFFICIAL_ENTRY = "export { ClientFactory } from '@a2a-js/sdk/client';";

/**
 * What a user gets: `pnpm pack` of every browser-safe package (workspace ranges become versions),
 * `npm install` of the tarballs into a scratch project (npm resolves zod and the official SDK from
 * the registry; `overrides` point our packages' dependencies on each other at the tarballs), so the
 * bundles are built from the published `dist`, with each package's own `exports` and `sideEffects`.
 */
function installFromTarballs(dir: string): Record<string, string> {
  const tarballs = join(dir, 'tarballs');
  mkdirSync(tarballs);
  const dependencies: Record<string, string> = {};
  const overrides: Record<string, string> = {};
  for (const pkg of PACKAGES) {
    const before = new Set(readdirSync(tarballs));
    execFileSync('pnpm', ['pack', '--pack-destination', tarballs], { cwd: join(APP_DIR, '..', '..', 'packages', pkg), stdio: 'pipe' });
    const file = readdirSync(tarballs).find((name) => !before.has(name));
    if (!file) throw new Error(`pnpm pack of ${pkg} wrote no tarball`);
    dependencies[`@a2aplane/${pkg}`] = `file:./tarballs/${file}`;
    overrides[`@a2aplane/${pkg}`] = `$@a2aplane/${pkg}`;
  }
  const versionIn = (modules: string, name: string) =>
    (JSON.parse(readFileSync(join(modules, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  // The official SDK at the version the bench compares against elsewhere (its exports hide package.json).
  dependencies['@a2a-js/sdk'] = versionIn(APP_DIR, '@a2a-js/sdk');
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'bundle-scratch', private: true, type: 'module', dependencies, overrides }),
  );
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], { cwd: dir, stdio: 'pipe' });
  return Object.fromEntries([...Object.keys(dependencies), 'zod'].map((name) => [name, versionIn(dir, name)]));
}

/**
 * esbuild browser bundle (ESM, minified, es2022, every dependency in) of `entry`, gzip -9 per output file. With
 * splitting, as application bundlers build `import()`: `initial` is the entry chunk and what it imports statically.
 */
async function bundle(entry: string, resolveDir: string, splitting: boolean) {
  const result = await build({
    stdin: { contents: entry, resolveDir, loader: 'ts', sourcefile: 'entry.ts' },
    bundle: true,
    minify: true,
    splitting,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    outdir: 'out',
    write: false,
    logLevel: 'silent',
    metafile: true,
  });
  const { outputs } = result.metafile;
  const sizes = new Map<string, { min: number; gzip: number }>();
  for (const file of result.outputFiles) {
    // Metafile keys are relative to the working directory; output files carry absolute paths.
    const key = Object.keys(outputs).find((name) => file.path.endsWith(name.replace(/^(\.\.\/)+/, '')));
    if (key?.endsWith('.js')) sizes.set(key, { min: file.contents.length, gzip: gzipSync(file.contents, { level: 9 }).length });
  }
  const initial = new Set<string>();
  const visit = (file: string): void => {
    if (initial.has(file)) return;
    initial.add(file);
    for (const imported of outputs[file]!.imports) if (imported.kind === 'import-statement') visit(imported.path);
  };
  visit(Object.keys(outputs).find((name) => outputs[name]!.entryPoint?.endsWith('entry.ts') && name.endsWith('.js'))!);
  const sum = (files: string[]) => ({
    minifiedBytes: files.reduce((total, file) => total + (sizes.get(file)?.min ?? 0), 0),
    gzipBytes: files.reduce((total, file) => total + (sizes.get(file)?.gzip ?? 0), 0),
  });
  return { initial: sum([...initial]), total: sum([...sizes.keys()]) };
}

export async function runBundle(_options: RunOptions): Promise<SuiteResult> {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-bundle-'));
  try {
    const versions = installFromTarballs(dir);
    const [ours, official] = await Promise.all(
      [OURS_ENTRY, OFFICIAL_ENTRY].map(async (entry) => ({
        entry,
        split: await bundle(entry, dir, true),
        one: (await bundle(entry, dir, false)).total,
      })),
    );
    const { split, one } = ours!;
    // Issue 32's goals: what users get with and without a splitting bundler, and once everything has loaded.
    const markdown = [
      `Measured as installed: each package is packed (\`pnpm pack\`) and the tarballs are installed with \`npm install\` into a scratch project (${Object.entries(
        versions,
      )
        .map(([name, version]) => `${name}@${version}`)
        .join(
          ', ',
        )}), then bundled from there with esbuild (bundle, minify, platform browser, format esm, target es2022) and gzip -9; every dependency is included. With code splitting, as application bundlers build a dynamic \`import()\`, the initial download is the entry chunk and what it imports statically, and everything loaded adds the chunks loaded on demand (each file gzip -9 on its own); one file is the bundle without splitting.`,
      '',
      table(
        ['entry', 'initial download (gzip)', 'one file (gzip)', 'everything loaded (gzip)', 'minified: initial / one file / everything'],
        [ours!, official!].map((b) => [
          `\`${b.entry}\``,
          kb(b.split.initial.gzipBytes),
          kb(b.one.gzipBytes),
          kb(b.split.total.gzipBytes),
          `${kb(b.split.initial.minifiedBytes)} / ${kb(b.one.minifiedBytes)} / ${kb(b.split.total.minifiedBytes)}`,
        ]),
      ),
      '',
      goalTable([
        ['one file without splitting', kb(one.gzipBytes), '<= 30 KB', one.gzipBytes <= 30 * 1024],
        ['initial download with splitting', kb(split.initial.gzipBytes), '<= 20 KB', split.initial.gzipBytes <= 20 * 1024],
        [
          'everything loaded',
          kb(split.total.gzipBytes),
          `<= one file + 10 % (${kb(one.gzipBytes * 1.1)})`,
          split.total.gzipBytes <= one.gzipBytes * 1.1,
        ],
      ]),
      '',
      `One file, ours / official: ${ratio(one.gzipBytes / official!.one.gzipBytes)}.`,
    ].join('\n');
    return { title: 'Browser bundle size', markdown, data: { ours, official, installed: versions } };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
