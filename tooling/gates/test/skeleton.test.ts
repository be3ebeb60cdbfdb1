import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { publishedPackages } from './workspace.js';

// STYLE.md: every package has the same skeleton and manifest shape.
const REQUIRED_FILES = ['README.md', 'CHANGELOG.md', 'package.json', 'tsconfig.json', 'tsup.config.ts', 'vitest.config.ts', 'src/index.ts'];
const README_SECTIONS = ['## Install', '## Quick start', '## API', '## Errors', '## Compatibility'];

describe.each(publishedPackages())('package skeleton: $dir', ({ dir, path, manifest }) => {
  it('has every skeleton file', () => {
    expect(REQUIRED_FILES.filter((file) => !existsSync(join(path, file)))).toEqual([]);
  });

  it('has a README with the standard sections', () => {
    const readme = readFileSync(join(path, 'README.md'), 'utf8');
    expect(README_SECTIONS.filter((section) => !readme.includes(section))).toEqual([]);
  });

  it('has a uniform manifest', () => {
    expect(manifest.name).toBe(`@a2aplane/${dir}`);
    expect(manifest.type).toBe('module');
    expect(manifest.sideEffects).toBe(false);
    expect(manifest.license).toBe('Apache-2.0');
    expect(manifest.engines).toEqual({ node: '>=20' });
    expect(manifest.files).toContain('dist');
    expect(manifest.exports['./package.json']).toBe('./package.json');
    expect(manifest.publishConfig).toEqual({ access: 'public' });
  });

  it('lists types first for both import and require in every export', () => {
    for (const [key, value] of Object.entries(manifest.exports)) {
      if (key === './package.json') continue;
      const conditions = value as Record<string, Record<string, string>>;
      expect(Object.keys(conditions.import ?? {})[0], key).toBe('types');
      expect(Object.keys(conditions.require ?? {})[0], key).toBe('types');
    }
  });

  it('depends on sibling packages with workspace:^ only (peers may span the 0.x minors)', () => {
    const dependencies = (manifest.dependencies as Record<string, string> | undefined) ?? {};
    for (const [name, range] of Object.entries(dependencies)) {
      if (name.startsWith('@a2aplane/')) expect(range, name).toBe('workspace:^');
    }
    // A peer on ^0.x would turn every minor release of the sibling into a major of this package
    // (changesets bumps peer dependents that fall out of range); `>=0.y <1.0.0` is the one alternative.
    const peers = (manifest.peerDependencies as Record<string, string> | undefined) ?? {};
    for (const [name, range] of Object.entries(peers)) {
      if (name.startsWith('@a2aplane/')) expect(range, name).toMatch(/^workspace:(\^|>=0\.\d+\.\d+ <1\.0\.0)$/);
    }
  });
});
