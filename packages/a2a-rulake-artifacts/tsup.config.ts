import { definePackageConfig } from '@a2aplane/tooling/tsup';

export default definePackageConfig({
  entry: { index: 'src/index.ts', node: 'src/node/index.ts', testing: 'src/testing/index.ts' },
  platform: 'neutral',
});
