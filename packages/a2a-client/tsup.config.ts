import { definePackageConfig } from '@a2aplane/tooling/tsup';

export default definePackageConfig({
  entry: {'index':  'src/index.ts', 'routing':  'src/routing/index.ts'},
  platform: 'neutral',
});
