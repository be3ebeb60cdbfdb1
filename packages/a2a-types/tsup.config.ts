import { definePackageConfig } from '@a2aplane/tooling/tsup';

// One ESM module per source file: a client that reads task states or error classes does not bundle
// zod and every schema. `proto-rename` (the ProtoJSON renamer), `rest-routes` (the REST route
// table) and `task-context` (lineage metadata, traceparent) import nothing at run time: a client loads them on demand (decision 0044);
// so does `error-convert` (the error response converters, given the root's classes: decision 0050).
// `client-core` (built into the client) and `client-extras` are what the client imports without
// reaching the error classes, which it loads on demand (decision 0052).
export default definePackageConfig({
  entry: {
    index: 'src/index.ts',
    v0_3: 'src/v0_3/index.ts',
    'proto-rename': 'src/proto-rename.ts',
    'rest-routes': 'src/rest-routes.ts',
    'task-context': 'src/task-context.ts',
    'error-convert': 'src/errors/convert-core.ts',
    'client-core': 'src/client-core.ts',
    'client-extras': 'src/client-extras.ts',
  },
  modules: true,
});
