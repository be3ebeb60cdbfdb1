// Shared tsup preset: ESM + CJS + .d.ts/.d.cts with sourcemaps, one output file per entry.
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
    splitting: false,
    treeshake: true,
    external: options.external ?? [],
    outDir: 'dist',
  });
}
