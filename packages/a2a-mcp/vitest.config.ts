import { definePackageTestConfig } from '@a2aplane/tooling/vitest';

export default definePackageTestConfig({ nodeResolution: true });
