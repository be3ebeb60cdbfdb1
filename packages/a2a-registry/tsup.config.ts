import { definePackageConfig } from '@a2aplane/tooling/tsup';

export default definePackageConfig({
  entry: { index: 'src/index.ts', testing: 'src/testing/index.ts', postgres: 'src/postgres/index.ts' },
  external: ['pg'],
  platform: 'node',
});
