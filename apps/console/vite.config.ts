import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

// The UI: src/ui → dist/ui (served by src/server). `pnpm --filter @a2aplane/a2a-console dev` runs
// Vite's dev server; its API calls need the backend (`pnpm console`), so the dev server proxies /api.
export default defineConfig({
  root: 'src/ui',
  base: './',
  plugins: [preact()],
  build: {
    outDir: '../../dist/ui',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: true,
  },
  server: {
    proxy: { '/api': process.env.A2A_CONSOLE_BACKEND ?? 'http://127.0.0.1:5299' },
  },
});
