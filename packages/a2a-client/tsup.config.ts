import { definePackageConfig } from '@a2aplane/tooling/tsup';

export default definePackageConfig({
  entry: { index: 'src/index.ts', routing: 'src/routing/index.ts', strict: 'src/strict.ts', v0_3: 'src/v0_3.ts' },
  platform: 'neutral',
  // The ProtoJSON renamer, the REST route table, the call context writer (decision 0044) and the error
  // response converters (decision 0050), loaded on demand, are built into
  // chunks of this package that import nothing: were they imported from a2a-types, an application
  // bundler would put them in a chunk shared with the a2a-types root this package imports,
  // downloaded up front (decision 0038).
  noExternal: [
    '@a2aplane/a2a-types/proto-rename',
    '@a2aplane/a2a-types/rest-routes',
    '@a2aplane/a2a-types/task-context',
    '@a2aplane/a2a-types/error-convert',
  ],
});
