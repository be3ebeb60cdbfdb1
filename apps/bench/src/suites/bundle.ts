import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { kb, passFail, ratio, table } from '../lib/format.js';
import { packageOf, type SplitBundle, splitBundle } from '../lib/split-bundle.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

const APP_DIR = fileURLToPath(new URL('../..', import.meta.url));
const ROOT = join(APP_DIR, '..', '..');
const PACKAGES = ['a2a-types', 'a2a-identity', 'a2a-governance', 'a2a-routing', 'a2a-rulake-artifacts', 'a2a-client'];
/** The issue's reference figure for the official `{ ClientFactory }` entry. */
const OFFICIAL_REFERENCE_GZIP_KB = 24.8;

export interface BundleRow {
  name: string;
  entry: string;
  minifiedBytes: number;
  gzipBytes: number;
  /** Minified bytes per package (esbuild metafile), largest first. */
  byPackage: Array<{ name: string; bytes: number }>;
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
    metafile: true,
  });
  const bytes = result.outputFiles[0]!.contents;
  const totals = new Map<string, number>();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [path, input] of Object.entries(output.inputs)) {
      const key = packageOf(path);
      totals.set(key, (totals.get(key) ?? 0) + input.bytesInOutput);
    }
  }
  const byPackage = [...totals].map(([pkg, size]) => ({ name: pkg, bytes: size })).sort((a, b) => b.bytes - a.bytes);
  return { name, entry, minifiedBytes: bytes.length, gzipBytes: gzipSync(bytes, { level: 9 }).length, byPackage };
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
  // The two clients with code splitting, as an application bundler builds them (lazy chunks apart).
  const oursSplit = await splitBundle("export { createA2AClient } from '@a2aplane/a2a-client';", dir);
  const officialSplit = await splitBundle("export { ClientFactory } from '@a2a-js/sdk/client';", dir);
  const ours = await measure('a2a-client { createA2AClient }', "export { createA2AClient } from '@a2aplane/a2a-client';", dir);
  const official = await measure('@a2a-js/sdk/client { ClientFactory }', "export { ClientFactory } from '@a2a-js/sdk/client';", dir);
  const packages: BundleRow[] = [];
  for (const pkg of PACKAGES) {
    packages.push(await measure(`@a2aplane/${pkg} (whole root entry)`, `export * from '@a2aplane/${pkg}';`, dir));
  }
  const splitRow = (entry: string, split: SplitBundle) => [
    `\`${entry}\``,
    kb(split.initial.minifiedBytes),
    kb(split.initial.gzipBytes),
    kb(split.total.minifiedBytes),
    kb(split.total.gzipBytes),
  ];
  // Issue 32's goals for { createA2AClient }: the three sizes users get (decision 0090).
  const goals = {
    initial: oursSplit.initial.gzipBytes <= 20 * 1024,
    oneFile: ours.gzipBytes <= 30 * 1024,
    loaded: oursSplit.total.gzipBytes <= ours.gzipBytes * 1.1,
  };
  const goalPass = goals.initial && goals.oneFile && goals.loaded;
  const share = oursSplit.initial.gzipBytes / officialSplit.initial.gzipBytes;
  const markdown = [
    `Measured as installed: each package is packed (\`pnpm pack\`) and the tarballs are installed with \`npm install\` into a scratch project (${Object.entries(
      versions,
    )
      .map(([name, version]) => `${name}@${version}`)
      .join(
        ', ',
      )}), then bundled from there with esbuild (bundle, minify, platform browser, format esm, target es2022) and gzip -9; every dependency is included.`,
    '',
    'With code splitting, as application bundlers build a dynamic `import()`: the initial download is the entry chunk and what it imports statically; the total adds the chunks loaded on demand (for ours, the streaming code, loaded by the first stream, and discovery with card verification, loaded by the first `resolve`). Each file gzip -9 on its own.',
    '',
    table(
      ['entry', 'initial minified', 'initial gzip -9', 'total minified', 'total gzip -9'],
      [splitRow(ours.entry, oursSplit), splitRow(official.entry, officialSplit)],
    ),
    '',
    `Our client's initial download is ${ratio(share)} the official client's (official measured ${kb(officialSplit.initial.gzipBytes)}, issue reference ${OFFICIAL_REFERENCE_GZIP_KB} KB).`,
    '',
    'Without code splitting (one file, lazy chunks inlined):',
    '',
    table(
      ['entry', 'minified', 'gzip -9'],
      [ours, official].map((r) => [`\`${r.entry}\``, kb(r.minifiedBytes), kb(r.gzipBytes)]),
    ),
    '',
    `Our client split by package (minified bytes before gzip): initial ${oursSplit.initialByPackage.map((p) => `${p.name} ${kb(p.bytes)}`).join(', ')}; on demand ${oursSplit.lazyByPackage.map((p) => `${p.name} ${kb(p.bytes)}`).join(', ') || 'none'}.`,
    '',
    'What the one-file client bundles weigh, by package (minified bytes before gzip, from the esbuild metafile):',
    '',
    table(
      ['package', 'in ours', 'in official'],
      [...new Set([...ours.byPackage.slice(0, 8), ...official.byPackage.slice(0, 8)].filter((p) => p.bytes > 0).map((p) => p.name))].map(
        (pkg) => [
          pkg,
          kb(ours.byPackage.find((p) => p.name === pkg)?.bytes ?? 0),
          kb(official.byPackage.find((p) => p.name === pkg)?.bytes ?? 0),
        ],
      ),
    ),
    '',
    'The three sizes of `{ createA2AClient }` (gzip -9), beside the official `{ ClientFactory }`:',
    '',
    table(
      ['size', 'ours', 'official', 'goal', 'result'],
      [
        [
          'initial download, with code splitting',
          kb(oursSplit.initial.gzipBytes),
          kb(officialSplit.initial.gzipBytes),
          '<= 20 KB',
          `**${passFail(goals.initial)}**`,
        ],
        ['one file, without code splitting', kb(ours.gzipBytes), kb(official.gzipBytes), '<= 30 KB', `**${passFail(goals.oneFile)}**`],
        [
          'everything loaded, with code splitting',
          kb(oursSplit.total.gzipBytes),
          kb(officialSplit.total.gzipBytes),
          '<= one file + 10 %',
          `**${passFail(goals.loaded)}**`,
        ],
      ],
    ),
    '',
    'Each browser-safe package, whole root entry (`export * from ...`, so no tree shaking):',
    '',
    table(
      ['package', 'minified', 'gzip -9'],
      packages.map((r) => [r.name, kb(r.minifiedBytes), kb(r.gzipBytes)]),
    ),
  ].join('\n');
  return {
    title: 'Browser bundle size',
    markdown,
    data: { ours, official, oursSplit, officialSplit, share, goals, goalPass, packages, installed: versions },
  };
}
