// Shared tsup preset: ESM + CJS + .d.ts/.d.cts with sourcemaps. Entries share chunks (splitting
// for both formats), so a class reached from two entries is one class (instanceof holds across them).
import { defineConfig } from 'tsup';

/**
 * @param {{ entry?: Record<string, string>, platform?: 'neutral' | 'node' | 'browser', external?: string[], noExternal?: string[], modules?: boolean }} [options]
 * `modules: true` ships the ESM build as one module per source file (`src/a/b.ts` -> `dist/a/b.js`)
 * instead of bundled entries, so an application's bundler keeps only the modules it reaches (with
 * `sideEffects: false`); the export map then points at `dist/<path of the entry source>.js`.
 */
export function definePackageConfig(options = {}) {
  const entry = options.entry ?? { index: 'src/index.ts' };
  const common = {
    sourcemap: true,
    target: 'es2022',
    platform: options.platform ?? 'neutral',
    external: options.external ?? [],
    ...(options.noExternal ? { noExternal: options.noExternal } : {}),
    outDir: 'dist',
  };
  if (!options.modules) {
    return defineConfig({ ...common, entry, format: ['esm', 'cjs'], dts: true, clean: true, splitting: true, treeshake: true });
  }
  return defineConfig([
    // ESM: every source file transformed on its own; relative imports already end in `.js`.
    { ...common, entry: ['src/**/*.ts'], format: ['esm'], bundle: false, dts: { entry }, clean: true },
    // CJS: bundled entries with shared chunks (require() consumers do not tree-shake per module).
    { ...common, entry, format: ['cjs'], dts: { entry }, clean: false, splitting: true, treeshake: true },
  ]);
}
