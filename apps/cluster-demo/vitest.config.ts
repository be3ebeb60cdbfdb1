import { definePackageTestConfig } from '@a2aplane/tooling/vitest';

// Vitest hands the resolve conditions to its workers as `--conditions`; with `import` among them,
// node-postgres's own `require('pg-pool')` would get pg-pool's ESM build. Node adds `import` or
// `require` by itself, per call.
const conditions = ['@a2aplane/source', 'node', 'default'];
const config = definePackageTestConfig({ testTimeout: 120_000 });
export default {
  ...config,
  resolve: { ...config.resolve, conditions },
  ssr: { ...config.ssr, resolve: { ...config.ssr?.resolve, conditions } },
};
