import { definePackageConfig } from '@a2aplane/tooling/tsup';

export default definePackageConfig({
  entry: { index: 'src/index.ts', v0_3: 'src/v0_3/index.ts' },
});
