// Shared vitest preset: workspace packages resolve to their `src` through the
// `@a2aplane/source` export condition, so tests never need a prior build.
import { defineConfig } from 'vitest/config';

const moduleConditions = ['@a2aplane/source', 'module', 'node', 'import', 'default'];
// OpenTelemetry's `module` builds (build/esm) use extensionless imports that Node cannot load once
// vitest externalizes them: packages that load OpenTelemetry resolve as Node does.
const nodeConditions = ['@a2aplane/source', 'node', 'import', 'default'];

/** @param {{ testTimeout?: number, include?: string[], nodeResolution?: boolean }} [options] */
export function definePackageTestConfig(options = {}) {
  const conditions = options.nodeResolution ? nodeConditions : moduleConditions;
  return defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: ['@a2aplane/source'] } },
    test: {
      include: options.include ?? ['test/**/*.test.ts'],
      testTimeout: options.testTimeout ?? 20_000,
      hookTimeout: 20_000,
      reporters: process.env.CI ? ['default'] : ['default'],
      // `*.test-d.ts` files hold type tests (expectTypeOf, @ts-expect-error); vitest runs tsc on them.
      typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: 'tsconfig.json' },
    },
  });
}
