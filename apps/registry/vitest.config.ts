import { definePackageTestConfig } from '@a2aplane/tooling/vitest';

export default definePackageTestConfig({ testTimeout: 60_000 });
