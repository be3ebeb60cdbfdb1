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
  // vitest also hands the SSR conditions to its workers as Node `--conditions`, which Node's own
  // `require` honours too: with `import` among them, `require('is-promise')` inside express's router
  // loads the package's ESM file (a namespace, not the function), so every express middleware call
  // throws and express queues a 500 that races the binding's reply. Vite adds `import` or `require`
  // per request by itself; only the extra conditions go here.
  const ssrConditions = conditions.filter((condition) => condition !== 'import' && condition !== 'default');
  return defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions: ssrConditions, externalConditions: ['@a2aplane/source'] } },
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
