import { definePackageConfig } from '@a2aplane/tooling/tsup';

export default definePackageConfig({
  entry: { index: 'src/index.ts', routing: 'src/routing/index.ts', strict: 'src/strict.ts', v0_3: 'src/v0_3.ts' },
  platform: 'neutral',
  // The ProtoJSON renamer, the REST route table and the call context writer (decision 0044), loaded on
  // demand, are built into chunks of this package that import nothing: were they imported from
  // a2a-types, an application bundler would put them in a chunk shared with the a2a-types modules this
  // package imports, downloaded up front (decision 0038). The error classes and converters (decisions
  // 0050, 0052) are the a2a-types root's, which only an on-demand chunk imports.
  noExternal: [
    '@a2aplane/a2a-types/proto-rename',
    '@a2aplane/a2a-types/rest-routes',
    '@a2aplane/a2a-types/task-context',
    // The initial code's small a2a-types modules (decision 0052): a copy of its own, so that the error
    // classes, loaded on demand from the a2a-types root, share no module with the initial download.
    '@a2aplane/a2a-types/client-core',
  ],
});
