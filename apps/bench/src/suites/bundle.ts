import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { kb, passFail, ratio, table } from '../lib/format.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

const APP_DIR = fileURLToPath(new URL('../..', import.meta.url));
/** The reference figure for the official `{ ClientFactory }` entry. */
const OFFICIAL_REFERENCE_GZIP_KB = 24.8;

export interface BundleRow {
  name: string;
  entry: string;
  minifiedBytes: number;
  gzipBytes: number;
  /** Minified bytes per package (esbuild metafile), largest first. */
  byPackage: Array<{ name: string; bytes: number }>;
}

/** `.../node_modules/.pnpm/x/node_modules/zod/v4/...` -> `zod`; `packages/a2a-types/src/...` -> `@a2aplane/a2a-types`. */
function packageOf(path: string): string {
  const modules = path.lastIndexOf('node_modules/');
  if (modules !== -1) {
    const rest = path.slice(modules + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const workspace = /(?:^|\/)packages\/([^/]+)\//.exec(path);
  return workspace ? `@a2aplane/${workspace[1]}` : path;
}

/** esbuild bundle + minify for the browser (ESM), every dependency included, then gzip -9. */
async function measure(name: string, entry: string): Promise<BundleRow> {
  const result = await build({
    stdin: { contents: entry, resolveDir: APP_DIR, loader: 'ts', sourcefile: 'entry.ts' },
    bundle: true,
    minify: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
    // Workspace packages are bundled from their TypeScript source (what the dist build compiles).
    conditions: ['@a2aplane/source'],
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
  const ours = await measure('a2a-client { createA2AClient }', "export { createA2AClient } from '@a2aplane/a2a-client';");
  const official = await measure('@a2a-js/sdk/client { ClientFactory }', "export { ClientFactory } from '@a2a-js/sdk/client';");
  const packages: BundleRow[] = [];
  for (const pkg of ['a2a-types', 'a2a-identity', 'a2a-governance', 'a2a-routing', 'a2a-rulake-artifacts', 'a2a-client']) {
    packages.push(await measure(`@a2aplane/${pkg} (whole root entry)`, `export * from '@a2aplane/${pkg}';`));
  }
  const share = ours.gzipBytes / official.gzipBytes;
  const markdown = [
    'esbuild (bundle, minify, platform browser, format esm, target es2022) then gzip -9; every dependency is included. Workspace packages are bundled from source through the `@a2aplane/source` condition.',
    '',
    table(
      ['entry', 'minified', 'gzip -9'],
      [ours, official].map((r) => [`\`${r.entry}\``, kb(r.minifiedBytes), kb(r.gzipBytes)]),
    ),
    '',
    `Our client is ${ratio(share)} the official client's gzip size (official measured ${kb(official.gzipBytes)}, issue reference ${OFFICIAL_REFERENCE_GZIP_KB} KB). Goal at most half: **${passFail(share <= 0.5)}**.`,
    '',
    'What the client bundles weigh, by package (minified bytes before gzip, from the esbuild metafile):',
    '',
    table(
      ['package', 'in ours', 'in official'],
      [...new Set([...ours.byPackage.slice(0, 8), ...official.byPackage.slice(0, 8)].filter((p) => p.bytes > 0).map((p) => p.name))].map((pkg) => [
        pkg,
        kb(ours.byPackage.find((p) => p.name === pkg)?.bytes ?? 0),
        kb(official.byPackage.find((p) => p.name === pkg)?.bytes ?? 0),
      ]),
    ),
    '',
    'Each browser-safe package, whole root entry (`export * from ...`, so no tree shaking):',
    '',
    table(
      ['package', 'minified', 'gzip -9'],
      packages.map((r) => [r.name, kb(r.minifiedBytes), kb(r.gzipBytes)]),
    ),
  ].join('\n');
  return { title: 'Browser bundle size', markdown, data: { ours, official, share, goalPass: share <= 0.5, packages } };
}
