import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as core from '../src/core/index.js';
import * as root from '../src/index.js';

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  exports: Record<string, { '@a2aplane/source'?: string }>;
};

describe('the entries say what they are (decision 0095)', () => {
  it('each entry of package.json opens its index with a comment naming it', () => {
    const entries = Object.entries(manifest.exports).filter(([name]) => name !== './package.json');
    expect(entries.map(([name]) => name).sort()).toEqual(['.', './core', './express', './fetch', './testing']);
    for (const [name, target] of entries) {
      const source = readFileSync(new URL(`../${target['@a2aplane/source']}`, import.meta.url), 'utf8');
      const label = name === '.' ? 'root' : name.slice(2);
      expect(source.split('\n')[0], `${name}: ${target['@a2aplane/source']}`).toMatch(new RegExp(`^// The [^:]*\\b${label}\\b[^:]*: `));
    }
  });

  it('the root is a superset of /core: every export of the core is there, the same value', () => {
    const rootExports = new Map(Object.entries(root));
    const coreExports = Object.entries(core);
    expect(coreExports.length).toBeGreaterThan(10);
    expect(coreExports.filter(([name]) => !rootExports.has(name)).map(([name]) => name)).toEqual([]);
    for (const [name, value] of coreExports) expect(rootExports.get(name), name).toBe(value);
  });
});
