import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');

/** The modules `entry` loads at run time: relative imports followed, `import type` left out; bare specifiers listed. */
function runtimeGraph(entry: string): { modules: Set<string>; packages: Set<string> } {
  const modules = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (modules.has(file)) return;
    modules.add(file);
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/^(?:import|export)\s+(?!type\s)[^;]*?from\s+'([^']+)'/gms)) {
      const specifier = match[1] as string;
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else packages.add(specifier);
    }
  };
  visit(join(src, entry));
  return { modules, packages };
}

describe('the client and server halves are separate entries', () => {
  it('the client entry never loads the server half or a2a-server-express', () => {
    const { modules, packages } = runtimeGraph('client/index.ts');
    const names = [...modules].map((file) => file.slice(src.length + 1));
    expect(names).toContain('transport.ts');
    expect(names).toContain('transport-factory.ts');
    expect(names).not.toContain('server.ts');
    expect(names).not.toContain('listen.ts');
    expect([...packages]).not.toContain('@a2aplane/a2a-server-express');
  });

  it('the server entry serves a core (server.ts, listen.ts) without the client transport', () => {
    const { modules } = runtimeGraph('server/index.ts');
    const names = [...modules].map((file) => file.slice(src.length + 1));
    expect(names).toEqual(expect.arrayContaining(['server.ts', 'listen.ts']));
    expect(names).not.toContain('transport.ts');
  });
});
