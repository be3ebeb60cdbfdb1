import { definePackageConfig } from '@a2aplane/tooling/tsup';

export default definePackageConfig({
  entry: { index: 'src/index.ts' },
  platform: 'node',
});
