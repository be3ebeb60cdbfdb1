import { definePackageConfig } from '@a2aplane/tooling/tsup';

export default definePackageConfig({
  entry: { index: 'src/index.ts', client: 'src/client/index.ts', server: 'src/server/index.ts' },
  platform: 'node',
});
