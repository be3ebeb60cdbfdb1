import { definePackageTestConfig } from '@a2aplane/tooling/vitest';

export default definePackageTestConfig({ testTimeout: 120_000, nodeResolution: true });
