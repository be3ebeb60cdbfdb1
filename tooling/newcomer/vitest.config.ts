import { definePackageTestConfig } from '@a2aplane/tooling/vitest';

// Packing, installing from the tarballs with npm and running every step takes minutes, not seconds.
export default definePackageTestConfig({ testTimeout: 900_000 });
