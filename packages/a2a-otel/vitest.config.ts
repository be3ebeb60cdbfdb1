import { definePackageTestConfig } from '@a2aplane/tooling/vitest';

// The preset's `module` condition picks OpenTelemetry's `build/esm`, whose extensionless imports
// Node cannot load when vitest externalizes it: resolve these packages as Node does.
const config = definePackageTestConfig();
const conditions = ['@a2aplane/source', 'node', 'import', 'default'];
config.resolve = { ...config.resolve, conditions };
config.ssr = { ...config.ssr, resolve: { ...config.ssr?.resolve, conditions } };

export default config;
