// Shared tsup preset: ESM + CJS + .d.ts/.d.cts with sourcemaps. Entries share chunks (splitting
// for both formats), so a class reached from two entries is one class (instanceof holds across them).
import { defineConfig } from 'tsup';

/** @param {{ entry?: Record<string, string> | string[], platform?: 'neutral' | 'node' | 'browser', external?: string[] }} [options] */
export function definePackageConfig(options = {}) {
  return defineConfig({
    entry: options.entry ?? { index: 'src/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'es2022',
    platform: options.platform ?? 'neutral',
    splitting: true,
    treeshake: true,
    external: options.external ?? [],
    outDir: 'dist',
  });
}
