// Dead exports: a symbol a source module exports that no entry point publishes and no other module
// (source or test) of its package imports. Such an export is either dead code or an accidental
// public-looking name; drop the `export` (or the code). Uses the TypeScript checker, so re-exports,
// aliases and `import * as ns` are followed.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';

function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'fixtures' ? [] : filesUnder(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Source entry files of a package: the `@a2aplane/source` target of each export and the bin sources. */
function entrySources(packageDir, manifest) {
  const entries = new Set();
  for (const target of Object.values(manifest.exports ?? {})) {
    const source = typeof target === 'object' && target !== null ? target['@a2aplane/source'] : undefined;
    if (typeof source === 'string') entries.add(resolve(packageDir, source));
  }
  const binSource = join(packageDir, 'src', 'bin.ts');
  if (manifest.bin && existsSync(binSource)) entries.add(binSource);
  return entries;
}

export function findDeadExports(packageDir, manifest) {
  const src = filesUnder(join(packageDir, 'src'));
  const tests = filesUnder(join(packageDir, 'test'));
  const program = ts.createProgram([...src, ...tests], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    allowJs: false,
    noEmit: true,
    skipLibCheck: true,
    customConditions: ['@a2aplane/source'],
    resolveJsonModule: true,
  });
  const checker = program.getTypeChecker();
  const resolveAlias = (symbol) => (symbol && symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);
  const used = new Set();
  const markModule = (moduleSpecifier) => {
    const moduleSymbol = checker.getSymbolAtLocation(moduleSpecifier);
    if (moduleSymbol) for (const symbol of checker.getExportsOfModule(moduleSymbol)) used.add(resolveAlias(symbol));
  };
  const entries = entrySources(packageDir, manifest);
  for (const file of [...src, ...tests]) {
    const source = program.getSourceFile(file);
    if (!source) continue;
    const isEntry = entries.has(file);
    ts.forEachChild(source, (node) => {
      if (ts.isImportDeclaration(node) && node.importClause) {
        const bindings = node.importClause.namedBindings;
        if (node.importClause.name) used.add(resolveAlias(checker.getSymbolAtLocation(node.importClause.name)));
        if (bindings && ts.isNamespaceImport(bindings)) markModule(node.moduleSpecifier);
        if (bindings && ts.isNamedImports(bindings)) {
          for (const element of bindings.elements) used.add(resolveAlias(checker.getSymbolAtLocation(element.name)));
        }
      }
      if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
        if (!node.exportClause || ts.isNamespaceExport(node.exportClause)) markModule(node.moduleSpecifier);
        else for (const element of node.exportClause.elements) used.add(resolveAlias(checker.getSymbolAtLocation(element.name)));
      }
      // Dynamic import('./x.js') keeps every export of x alive.
      const visit = (child) => {
        if (ts.isCallExpression(child) && child.expression.kind === ts.SyntaxKind.ImportKeyword && child.arguments[0]) markModule(child.arguments[0]);
        ts.forEachChild(child, visit);
      };
      visit(node);
    });
    if (isEntry) {
      const moduleSymbol = checker.getSymbolAtLocation(source);
      if (moduleSymbol) for (const symbol of checker.getExportsOfModule(moduleSymbol)) used.add(resolveAlias(symbol));
    }
  }
  const dead = [];
  for (const file of src) {
    if (entries.has(file)) continue;
    const source = program.getSourceFile(file);
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    if (!moduleSymbol) continue;
    for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
      if (!used.has(resolveAlias(symbol))) dead.push(`${relative(packageDir, file)}: ${symbol.name}`);
    }
  }
  return dead;
}
