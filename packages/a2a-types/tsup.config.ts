import { definePackageConfig } from '@a2aplane/tooling/tsup';

// One ESM module per source file: a client that reads task states or error classes does not bundle
// zod and every schema (an application bundler keeps only the modules it reaches, `sideEffects: false`).
export default definePackageConfig({
  entry: {
    index: 'src/index.ts',
    v0_3: 'src/v0_3/index.ts',
  },
  modules: true,
});
