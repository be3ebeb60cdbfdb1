import { definePackageTestConfig } from '@a2aplane/tooling/vitest';

// Vitest hands its resolve conditions to the worker's Node (`--conditions`). With `import` among
// them, pg's `require('pg-pool')` picks pg-pool's ESM build and fails: this package resolves
// without `import` (every dependency it loads also has a `node`, `default` or `require` entry).
const conditions = ['@a2aplane/source', 'node', 'default'];
const config = definePackageTestConfig({ nodeResolution: true });
export default {
  ...config,
  resolve: { ...config.resolve, conditions },
  ssr: { ...config.ssr, resolve: { ...config.ssr?.resolve, conditions } },
};
