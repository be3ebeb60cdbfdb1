import { join } from 'node:path';
import { ERROR_CODE_TABLE } from '@a2aplane/a2a-types';
import ts from 'typescript';
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
    // Imports every entry point of every package through the transform: slow when `pnpm test` runs
    // every package's suite at once on a small machine.
  }, 120_000);

  it('freezes the type-level exports of every entry point (from the built declarations)', () => {
    const entries: [string, string][] = [];
    for (const pkg of publishedPackages()) {
      for (const [subpath, target] of Object.entries(pkg.manifest.exports)) {
        const types = (target as { import?: { types?: string } }).import?.types;
        if (subpath === './package.json' || types === undefined) continue;
        const specifier = subpath === '.' ? pkg.manifest.name : `${pkg.manifest.name}/${subpath.slice(2)}`;
        entries.push([specifier, join(pkg.path, types)]);
      }
    }
    const program = ts.createProgram(
      entries.map(([, file]) => file),
      {
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        target: ts.ScriptTarget.ES2022,
        skipLibCheck: true,
        noEmit: true,
      },
    );
    const checker = program.getTypeChecker();
    const surface: Record<string, string[]> = {};
    for (const [specifier, file] of entries) {
      const source = program.getSourceFile(file);
      const module = source && checker.getSymbolAtLocation(source);
      if (!module) throw new Error(`${specifier}: cannot read ${file} (run pnpm build)`);
      // Type-only names (interfaces, type aliases); values are pinned by the runtime test above.
      surface[specifier] = checker
        .getExportsOfModule(module)
        .filter((symbol) => {
          const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
          return (target.flags & ts.SymbolFlags.Value) === 0;
        })
        .map((symbol) => symbol.name)
        .sort();
    }
    expect(surface).toMatchSnapshot();
    // A TypeScript program over every package's declarations: 5 s on a quiet machine, over 20 s when
    // `pnpm test` runs every package's suite at once on 2 cores.
  }, 120_000);

  it('freezes the error-code table', () => {
    expect(ERROR_CODE_TABLE).toMatchSnapshot();
  });
});
