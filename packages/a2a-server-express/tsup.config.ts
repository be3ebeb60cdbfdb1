import { definePackageConfig } from '@a2aplane/tooling/tsup';

export default definePackageConfig({
  entry: {
    index: 'src/index.ts',
    core: 'src/core/index.ts',
    express: 'src/express/index.ts',
    fetch: 'src/fetch/index.ts',
    testing: 'src/testing/index.ts',
  },
  platform: 'node',
});
