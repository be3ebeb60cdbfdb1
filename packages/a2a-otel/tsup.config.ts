import { definePackageConfig } from '@a2aplane/tooling/tsup';

export default definePackageConfig({
  entry: { index: 'src/index.ts', prometheus: 'src/prometheus.ts', read: 'src/read.ts' },
  platform: 'node',
});
