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
  });
  const bytes = result.outputFiles[0]!.contents;
  return { name, entry, minifiedBytes: bytes.length, gzipBytes: gzipSync(bytes, { level: 9 }).length };
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
    'Each browser-safe package, whole root entry (`export * from ...`, so no tree shaking):',
    '',
    table(
      ['package', 'minified', 'gzip -9'],
      packages.map((r) => [r.name, kb(r.minifiedBytes), kb(r.gzipBytes)]),
    ),
  ].join('\n');
  return { title: 'Browser bundle size', markdown, data: { ours, official, share, goalPass: share <= 0.5, packages } };
}
