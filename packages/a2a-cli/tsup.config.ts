import { defineConfig } from 'tsup';

// The library (ESM + CJS + types) and the `a2a` executable. The ESM build holds both entries with
// shared chunks, so `bin.js` runs the same modules as `index.js` (no second copy of each class);
// bin.ts starts with its own shebang, which esbuild keeps.
export default defineConfig([
  {
    entry: { index: 'src/index.ts', bin: 'src/bin.ts' },
    format: ['esm'],
    dts: { entry: { index: 'src/index.ts' } },
    sourcemap: true,
    clean: true,
    target: 'es2022',
    platform: 'node',
    splitting: true,
    treeshake: true,
    outDir: 'dist',
  },
  {
    entry: { index: 'src/index.ts' },
    format: ['cjs'],
    dts: { entry: { index: 'src/index.ts' } },
    sourcemap: true,
    clean: false,
    target: 'es2022',
    platform: 'node',
    splitting: true,
    treeshake: true,
    outDir: 'dist',
  },
]);
