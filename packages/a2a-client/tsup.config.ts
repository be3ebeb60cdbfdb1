import { definePackageConfig } from '@a2aplane/tooling/tsup';

// Every dependency stays external (a2a-types, a2a-identity, ky, eventsource-parser): a patch to one of
// them reaches users without a release of this package. The lazy boundaries (decision 0090) are
// dynamic `import()`s, which tsup turns into chunks that import shared modules statically.
export default definePackageConfig({
  entry: { index: 'src/index.ts', routing: 'src/routing/index.ts', strict: 'src/strict.ts', v0_3: 'src/v0_3.ts' },
  platform: 'neutral',
});
