import { ERROR_CODE_TABLE } from '@a2aplane/a2a-types';
import { describe, expect, it } from 'vitest';
import { publishedPackages } from './workspace.js';

// Surface pins: a change to any of these snapshots is a deliberate API decision
// (update with `pnpm --filter @a2aplane/gates test -u` and add a changeset).
describe('surface pins', () => {
  it('freezes the published package list', () => {
    expect(publishedPackages().map((pkg) => pkg.manifest.name)).toMatchSnapshot();
  });

  it('freezes every package export map key', () => {
    expect(Object.fromEntries(publishedPackages().map((pkg) => [pkg.manifest.name, Object.keys(pkg.manifest.exports)]))).toMatchSnapshot();
  });

  it('freezes the runtime exports of every entry point', async () => {
    const surface: Record<string, string[]> = {};
    for (const pkg of publishedPackages()) {
      for (const subpath of Object.keys(pkg.manifest.exports)) {
        if (subpath === './package.json') continue;
        const specifier = subpath === '.' ? pkg.manifest.name : `${pkg.manifest.name}/${subpath.slice(2)}`;
        const module = (await import(/* @vite-ignore */ specifier)) as Record<string, unknown>;
        surface[specifier] = Object.keys(module).sort();
      }
    }
    expect(surface).toMatchSnapshot();
  });

  it('freezes the error-code table', () => {
    expect(ERROR_CODE_TABLE).toMatchSnapshot();
  });
});
