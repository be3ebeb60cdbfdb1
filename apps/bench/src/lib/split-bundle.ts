import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';

export interface ChunkSizes {
  minifiedBytes: number;
  /** Sum of each file's own gzip -9 size: every chunk is downloaded (and compressed) on its own. */
  gzipBytes: number;
  files: number;
}

export interface SplitBundle {
  /** The entry chunk and the chunks it imports statically: what a page downloads before the first call. */
  initial: ChunkSizes;
  /** Everything, lazily loaded chunks (dynamic `import()`) included. */
  total: ChunkSizes;
  /** Minified bytes per package in the initial chunks, largest first. */
  initialByPackage: Array<{ name: string; bytes: number }>;
  /** Minified bytes per package in the lazily loaded chunks, largest first. */
  lazyByPackage: Array<{ name: string; bytes: number }>;
}

/** `.../node_modules/zod/v4/...` -> `zod`; `.../node_modules/@a2aplane/a2a-types/dist/...` (or `packages/a2a-types/dist/...`) -> `@a2aplane/a2a-types`. */
function packageOf(path: string): string {
  const modules = path.lastIndexOf('node_modules/');
  if (modules === -1) {
    // A workspace package bundled from its built dist: `../../packages/a2a-types/dist/...`.
    const workspace = /(?:^|\/)packages\/([^/]+)\//.exec(path);
    return workspace ? `@a2aplane/${workspace[1]}` : path;
  }
  const rest = path.slice(modules + 'node_modules/'.length).split('/');
  return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
}

function byPackage(outputs: Metafile['outputs'], files: Iterable<string>): Array<{ name: string; bytes: number }> {
  const totals = new Map<string, number>();
  for (const file of files) {
    for (const [path, input] of Object.entries(outputs[file]!.inputs)) {
      const key = packageOf(path);
      totals.set(key, (totals.get(key) ?? 0) + input.bytesInOutput);
    }
  }
  return [...totals]
    .filter(([, bytes]) => bytes > 0)
    .map(([name, bytes]) => ({ name, bytes }))
    .sort((a, b) => b.bytes - a.bytes);
}

/**
 * esbuild browser bundle (ESM, minified, es2022) of `entry` with code splitting, as application
 * bundlers do for `import()`: the initial chunks are the entry and what it imports statically
 * (transitively); the rest loads on demand. Sizes are per file, gzip -9.
 */
export async function splitBundle(entry: string, resolveDir: string): Promise<SplitBundle> {
  const result = await build({
    stdin: { contents: entry, resolveDir, loader: 'ts', sourcefile: 'entry.ts' },
    bundle: true,
    minify: true,
    splitting: true,
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
  // Chunks loaded by `import()` are entry points too: the page's own is the stdin one.
  const entryFile = Object.keys(outputs).find((name) => outputs[name]!.entryPoint?.endsWith('entry.ts') && name.endsWith('.js'));
  if (!entryFile) throw new Error('esbuild produced no entry chunk');
  const initial = new Set<string>();
  const visit = (file: string): void => {
    if (initial.has(file)) return;
    initial.add(file);
    for (const imported of outputs[file]!.imports) if (imported.kind === 'import-statement') visit(imported.path);
  };
  visit(entryFile);
  const sum = (files: Iterable<string>): ChunkSizes => {
    let minifiedBytes = 0;
    let gzipBytes = 0;
    let count = 0;
    for (const file of files) {
      const size = sizes.get(file);
      if (!size) continue;
      minifiedBytes += size.min;
      gzipBytes += size.gzip;
      count++;
    }
    return { minifiedBytes, gzipBytes, files: count };
  };
  const all = [...sizes.keys()];
  return {
    initial: sum(initial),
    total: sum(all),
    initialByPackage: byPackage(outputs, initial),
    lazyByPackage: byPackage(
      outputs,
      all.filter((file) => !initial.has(file)),
    ),
  };
}
