import { defineConfig } from 'tsup';

// The backend: ESM for Node 20 (dist/server). The UI is built by Vite into dist/ui.
export default defineConfig({
  entry: { index: 'src/server/index.ts', bin: 'src/server/bin.ts' },
  outDir: 'dist/server',
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  dts: { entry: { index: 'src/server/index.ts' } },
  clean: false,
  sourcemap: true,
});
