import { gzipSync } from 'node:zlib';
import { measureClientSizes } from '@a2aplane/gates/client-size.mjs';
import { build } from 'esbuild';
import { goalTable, kb, ratio, table } from '../lib/format.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

const ROOT = new URL('../../../../', import.meta.url).pathname;

/**
 * Issue 32's goals for `{ createA2AClient }`: what users get with and without a splitting bundler, and once everything
 * has loaded, measured as the `bundle` gate measures it (tooling/gates/client-size.mjs, decision 0090); beside the
 * official `{ ClientFactory }` as one file, bundled the same way from the version the bench installs.
 */
export async function runBundle(_options: RunOptions): Promise<SuiteResult> {
  const ours = await measureClientSizes(ROOT);
  const result = await build({
    stdin: {
      contents: "export { ClientFactory } from '@a2a-js/sdk/client';",
      resolveDir: new URL('../..', import.meta.url).pathname,
      loader: 'js',
    },
    bundle: true,
    minify: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const official = gzipSync(result.outputFiles[0]!.contents, { level: 9 }).length;
  const markdown = [
    `Each package is packed (\`pnpm pack\`) and unpacked as a scratch project's \`node_modules\` (third-party dependencies from the workspace's installs), then bundled with esbuild (bundle, minify, platform browser, format esm, target es2022, every dependency in) and gzipped (-9, each output file on its own). With code splitting, as application bundlers build a dynamic \`import()\`, the initial download is the entry chunk and what it imports statically, and everything loaded adds the chunks loaded on demand; one file is the bundle without splitting.`,
    '',
    table(
      ['entry', 'initial download (gzip)', 'one file (gzip)', 'everything loaded (gzip)'],
      [
        ['`{ createA2AClient }` from @a2aplane/a2a-client', kb(ours.initial), kb(ours.oneFile), kb(ours.loaded)],
        ['`{ ClientFactory }` from @a2a-js/sdk/client', '', kb(official), ''],
      ],
    ),
    '',
    goalTable([
      ['one file without splitting', kb(ours.oneFile), '<= 30 KB', ours.oneFile <= 30 * 1024],
      ['initial download with splitting', kb(ours.initial), '<= 20 KB', ours.initial <= 20 * 1024],
      ['everything loaded', kb(ours.loaded), `<= one file + 10 % (${kb(ours.oneFile * 1.1)})`, ours.loaded <= ours.oneFile * 1.1],
    ]),
    '',
    `One file, ours / official: ${ratio(ours.oneFile / official)}.`,
  ].join('\n');
  return { markdown, data: { ours, official } };
}
