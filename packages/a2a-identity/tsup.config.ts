import { definePackageConfig } from '@a2aplane/tooling/tsup';

export default definePackageConfig({
  entry: { index: 'src/index.ts', verify: 'src/verify-only.ts', testing: 'src/testing/index.ts' },
  platform: 'neutral',
  // The only runtime import from a2a-types is `describeValue` (everything else is `import type`):
  // inlined, the `/verify` chunk a client loads on demand does not import the a2a-types root, so an
  // application bundler does not split every a2a-types module the client uses into a chunk shared
  // with it (one more file in the client's initial download; decision 0029). The built files then
  // import nothing from a2a-types at run time; the gate budget of createA2AClient catches a regression.
  noExternal: ['@a2aplane/a2a-types'],
});
