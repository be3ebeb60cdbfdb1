import { definePackageConfig } from '@a2aplane/tooling/tsup';

export default definePackageConfig({
  entry: { index: 'src/index.ts', routing: 'src/routing/index.ts', strict: 'src/strict.ts', v0_3: 'src/v0_3.ts' },
  platform: 'neutral',
});
