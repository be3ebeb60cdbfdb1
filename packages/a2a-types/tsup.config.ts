import { definePackageConfig } from '@a2aplane/tooling/tsup';

// One ESM module per source file: a client that reads task states or error classes does not bundle
// zod and every schema.
export default definePackageConfig({
  entry: { index: 'src/index.ts', v0_3: 'src/v0_3/index.ts' },
  modules: true,
});
