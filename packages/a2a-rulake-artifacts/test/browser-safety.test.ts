import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', 'src');

/** Every source file the root entry reaches through relative imports. */
function reachable(entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const code = readFileSync(file, 'utf8');
    for (const match of code.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      visit(join(dirname(file), match[1]!.replace(/\.js$/, '.ts')));
    }
  };
  visit(entry);
  return [...seen];
}

describe('browser and edge safety of the root entry', () => {
  const files = reachable(join(SRC, 'index.ts'));

  it('reaches the whole typed layer but nothing under src/node', () => {
    const names = files.map((file) => relative(SRC, file));
    expect(names).toEqual(expect.arrayContaining(['index.ts', 'artifact-kind.ts', 'store.ts', 'vector-codec.ts', 'handoff.ts']));
    expect(names.filter((name) => name.startsWith('node'))).toEqual([]);
  });

  it.each(files.map((file) => [relative(SRC, file), file]))('%s uses no Node built-ins, Buffer or process', (_name, file) => {
    const code = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    expect(code).not.toMatch(
      /from ['"]node:|from ['"](fs|path|crypto|url|os|stream)['"]|require\(|\bBuffer\b|\bprocess\.|reference types="node"/,
    );
  });
});
