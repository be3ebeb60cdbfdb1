import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { kb, passFail, ratio, table } from '../lib/format.js';
import { type SplitBundle, splitBundle } from '../lib/split-bundle.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

const APP_DIR = fileURLToPath(new URL('../..', import.meta.url));
const ROOT = join(APP_DIR, '..', '..');
const PACKAGES = ['a2a-types', 'a2a-identity', 'a2a-governance', 'a2a-routing', 'a2a-rulake-artifacts', 'a2a-client'];
const OURS_ENTRY = "export { createA2AClient } from '@a2aplane/a2a-client';";
const OFFICIAL_ENTRY = "export { ClientFactory } from '@a2a-js/sdk/client';";

export interface BundleRow {
  name: string;
  entry: string;
  minifiedBytes: number;
  gzipBytes: number;
}

/**
 * What a user gets: `pnpm pack` of every browser-safe package (workspace ranges become versions),
 * `npm install` of the tarballs into a scratch project (npm resolves zod and the official SDK from
 * the registry; `overrides` point our packages' dependencies on each other at the tarballs), so the
 * bundles below are built from the published `dist`, with each package's own `exports` and
 * `sideEffects`, exactly as an application would.
 */
function installFromTarballs(): { dir: string; versions: Record<string, string> } {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-bundle-'));
  const tarballs = join(dir, 'tarballs');
  mkdirSync(tarballs);
  const dependencies: Record<string, string> = {};
  const overrides: Record<string, string> = {};
  for (const pkg of PACKAGES) {
    const packageDir = join(ROOT, 'packages', pkg);
    const before = new Set(readdirSync(tarballs));
    execFileSync('pnpm', ['pack', '--pack-destination', tarballs], { cwd: packageDir, stdio: 'pipe' });
    const file = readdirSync(tarballs).find((name) => !before.has(name));
    if (!file) throw new Error(`pnpm pack of ${pkg} wrote no tarball`);
    const name = `@a2aplane/${pkg}`;
    dependencies[name] = `file:./tarballs/${file}`;
    overrides[name] = `$${name}`;
  }
  // The official SDK at the version the bench compares against elsewhere (its exports hide package.json).
  const sdkVersion = (
    JSON.parse(readFileSync(join(APP_DIR, 'node_modules', '@a2a-js', 'sdk', 'package.json'), 'utf8')) as { version: string }
  ).version;
  dependencies['@a2a-js/sdk'] = sdkVersion;
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'bundle-scratch', private: true, type: 'module', dependencies, overrides }, null, 2),
  );
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], { cwd: dir, stdio: 'pipe' });
  const versions: Record<string, string> = {};
  for (const name of [...Object.keys(dependencies), 'zod']) {
    versions[name] = (JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  }
  return { dir, versions };
}

/** esbuild bundle + minify for the browser (ESM), every dependency included, then gzip -9. */
async function measure(name: string, entry: string, resolveDir: string): Promise<BundleRow> {
  const result = await build({
    stdin: { contents: entry, resolveDir, loader: 'ts', sourcefile: 'entry.ts' },
    bundle: true,
    minify: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const bytes = result.outputFiles[0]!.contents;
  return { name, entry, minifiedBytes: bytes.length, gzipBytes: gzipSync(bytes, { level: 9 }).length };
}

export async function runBundle(_options: RunOptions): Promise<SuiteResult> {
  const { dir, versions } = installFromTarballs();
  try {
    return await measureInstalled(dir, versions);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measureInstalled(dir: string, versions: Record<string, string>): Promise<SuiteResult> {
  // The two clients with code splitting, as an application bundler builds them (lazy chunks apart), and as one file.
  const oursSplit = await splitBundle(OURS_ENTRY, dir);
  const officialSplit = await splitBundle(OFFICIAL_ENTRY, dir);
  const ours = await measure('a2a-client { createA2AClient }', OURS_ENTRY, dir);
  const official = await measure('@a2a-js/sdk/client { ClientFactory }', OFFICIAL_ENTRY, dir);
  const row = (entry: string, split: SplitBundle, one: BundleRow) => [
    `\`${entry}\``,
    kb(split.initial.gzipBytes),
    kb(one.gzipBytes),
    kb(split.total.gzipBytes),
    `${kb(split.initial.minifiedBytes)} / ${kb(one.minifiedBytes)} / ${kb(split.total.minifiedBytes)}`,
  ];
  // Issue 32's goals: what users get with and without a splitting bundler, and once everything has loaded.
  const goals = [
    { name: 'one file without splitting', value: ours.gzipBytes, max: 30 * 1024, target: '<= 30 KB' },
    { name: 'initial download with splitting', value: oursSplit.initial.gzipBytes, max: 20 * 1024, target: '<= 20 KB' },
    {
      name: 'everything loaded',
      value: oursSplit.total.gzipBytes,
      max: ours.gzipBytes * 1.1,
      target: `<= one file + 10 % (${kb(ours.gzipBytes * 1.1)})`,
    },
  ].map((g) => ({ ...g, pass: g.value <= g.max }));
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
      [row(ours.entry, oursSplit, ours), row(official.entry, officialSplit, official)],
    ),
    '',
    table(
      ['goal (ours, `createA2AClient`)', 'measured', 'target', 'result'],
      goals.map((g) => [g.name, kb(g.value), g.target, `**${passFail(g.pass)}**`]),
    ),
    '',
    `One file, ours / official: ${ratio(ours.gzipBytes / official.gzipBytes)}. Ours by package (minified bytes before gzip): initial ${oursSplit.initialByPackage.map((p) => `${p.name} ${kb(p.bytes)}`).join(', ')}; on demand ${oursSplit.lazyByPackage.map((p) => `${p.name} ${kb(p.bytes)}`).join(', ') || 'none'}.`,
  ].join('\n');
  return { title: 'Browser bundle size', markdown, data: { ours, official, oursSplit, officialSplit, goals, installed: versions } };
}
