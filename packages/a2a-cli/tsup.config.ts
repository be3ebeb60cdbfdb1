import { defineConfig } from 'tsup';

// The library (ESM + CJS + types) and the `a2a` executable (ESM with a shebang).
export default defineConfig([
  {
    entry: { index: 'src/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'es2022',
    platform: 'node',
    splitting: false,
    treeshake: true,
    outDir: 'dist',
  },
  {
    entry: { bin: 'src/bin.ts' },
    format: ['esm'],
    dts: false,
    sourcemap: false,
    clean: false,
    target: 'es2022',
    platform: 'node',
    splitting: false,
    treeshake: true,
    outDir: 'dist',
    banner: { js: '#!/usr/bin/env node' },
  },
]);
