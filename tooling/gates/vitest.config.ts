import { definePackageTestConfig } from '@a2aplane/tooling/vitest';

// The pins load every built entry, @a2aplane/a2a-otel's (and so @opentelemetry/api) included.
export default definePackageTestConfig({ nodeResolution: true });
