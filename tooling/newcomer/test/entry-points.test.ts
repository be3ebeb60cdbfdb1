import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// What a newcomer meets first: the README's first screen leads to the concepts page, and the concepts page explains
// every control-plane word the guides use, in our own words (no design document to look up).
const root = join(import.meta.dirname, '..', '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

describe('the way in', () => {
  it("links docs/concepts.md from the README's first screen", () => {
    const firstScreen = read('README.md').split('\n').slice(0, 15).join('\n');
    expect(firstScreen).toContain('](docs/concepts.md)');
  });

  it('explains each control-plane term in the concepts glossary, with one diagram', () => {
    const concepts = read('docs/concepts.md');
    expect(concepts).toContain('```mermaid');
    const glossary = concepts.slice(concepts.indexOf('## Glossary'));
    for (const term of [
      'AgentID',
      'agent card',
      'verified caller',
      'principal',
      'budget ledger',
      'TaskContext, lineage',
      'recursion guard',
      'task policy',
      'executor',
    ])
      expect(glossary, term).toContain(`| ${term}`);
    expect(concepts).not.toMatch(/ADR-159(?! ?")/);
  });

  it('has no placeholder declarations in the getting-started guide: every file there is complete', () => {
    expect(read('docs/getting-started.md')).not.toMatch(/declare const/);
  });
});
