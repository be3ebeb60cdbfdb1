import { definePackageConfig } from '@a2aplane/tooling/tsup';

// One ESM module per source file: a client that reads task states or error classes does not bundle
// zod and every schema. `proto-rename` is the dependency-free ProtoJSON renamer a client loads on
// demand (decision 0044).
export default definePackageConfig({
  entry: { index: 'src/index.ts', v0_3: 'src/v0_3/index.ts', 'proto-rename': 'src/proto-rename.ts' },
  modules: true,
});
