// The three sizes of `{ createA2AClient }` that users get (decision 0090), measured from the packed
// tarballs of a2a-client, a2a-types and a2a-identity (their published `files`, `exports` and
// `sideEffects`), bundled by esbuild for the browser (ESM, minified, es2022) with every dependency in,
// each output file gzip -9 on its own:
//   - initial: with code splitting, the entry chunk and the chunks it imports statically;
//   - one file: without code splitting (what Node agents, library bundles and bundlers that do not split get);
//   - loaded: with code splitting, every chunk (the lazy boundaries too).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';

const PACKED = ['a2a-client', 'a2a-types', 'a2a-identity'];
const ENTRY = "export { createA2AClient } from '@a2aplane/a2a-client';";

/** Packs each package and unpacks it as `node_modules/@a2aplane/<pkg>` of a scratch project. */
function installTarballs(root) {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-client-size-'));
  const tarballs = join(dir, 'tarballs');
  mkdirSync(tarballs);
  for (const pkg of PACKED) {
    const before = new Set(readdirSync(tarballs));
    execFileSync('pnpm', ['pack', '--pack-destination', tarballs], { cwd: join(root, 'packages', pkg), stdio: 'pipe' });
    const file = readdirSync(tarballs).find((name) => !before.has(name));
    const target = join(dir, 'node_modules', '@a2aplane', pkg);
    mkdirSync(target, { recursive: true });
    execFileSync('tar', ['-xzf', join(tarballs, file), '-C', target, '--strip-components=1'], { stdio: 'pipe' });
  }
  return dir;
}

async function bundle(dir, nodePaths, splitting) {
  const result = await esbuild.build({
    stdin: { contents: ENTRY, resolveDir: dir, loader: 'js', sourcefile: 'entry.js' },
    bundle: true,
    minify: true,
    splitting,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    nodePaths,
    outdir: join(dir, 'out'),
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const { outputs } = result.metafile;
  const gzipOf = new Map();
  for (const file of result.outputFiles) {
    const key = Object.keys(outputs).find((name) => file.path.endsWith(name.replace(/^(\.\.\/)+/, '')));
    if (key?.endsWith('.js')) gzipOf.set(key, gzipSync(file.contents, { level: 9 }).length);
  }
  const entry = Object.keys(outputs).find((name) => outputs[name].entryPoint?.endsWith('entry.js') && name.endsWith('.js'));
  const initial = new Set();
  const visit = (file) => {
    if (initial.has(file)) return;
    initial.add(file);
    for (const imported of outputs[file].imports) if (imported.kind === 'import-statement') visit(imported.path);
  };
  visit(entry);
  const sum = (files) => [...files].reduce((total, file) => total + (gzipOf.get(file) ?? 0), 0);
  return { initial: sum(initial), all: sum(gzipOf.keys()) };
}

/** `{ initial, oneFile, loaded }` in bytes gzip -9. Third-party dependencies resolve from the workspace's installs. */
export async function measureClientSizes(root) {
  const dir = installTarballs(root);
  try {
    const nodePaths = PACKED.map((pkg) => join(root, 'packages', pkg, 'node_modules'));
    const split = await bundle(dir, nodePaths, true);
    const single = await bundle(dir, nodePaths, false);
    return { initial: split.initial, oneFile: single.all, loaded: split.all };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
