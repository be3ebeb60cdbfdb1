// A source module bundled into two entries of one package is two copies of its classes and
// state: `instanceof` fails across entries and module-level caches split. The entries' sourcemaps
// list the modules each holds; modules shared by entries belong in a shared chunk instead.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';

/** The built entry files of a package: every export-map target and every bin, by format. */
export function entryFiles(packageDir, manifest) {
  const files = new Set();
  const visit = (target) => {
    if (typeof target === 'string') {
      if (/\.(c|m)?js$/.test(target)) files.add(resolve(packageDir, target));
    } else if (target && typeof target === 'object') {
      for (const [condition, value] of Object.entries(target)) if (!condition.startsWith('@')) visit(value);
    }
  };
  visit(manifest.exports ?? {});
  const bins = typeof manifest.bin === 'string' ? [manifest.bin] : Object.values(manifest.bin ?? {});
  for (const bin of bins) files.add(resolve(packageDir, bin));
  return [...files];
}

/** The package's own source modules an entry file carries, read from its sourcemap. */
export function bundledSources(file, packageDir) {
  const mapFile = `${file}.map`;
  if (!existsSync(mapFile)) throw new Error(`${relative(packageDir, file)} has no sourcemap (${relative(packageDir, mapFile)})`);
  const map = JSON.parse(readFileSync(mapFile, 'utf8'));
  return map.sources
    .map((source) => resolve(dirname(mapFile), map.sourceRoot ?? '', source))
    .filter((source) => !source.includes('/node_modules/'))
    .map((source) => relative(packageDir, source));
}

/**
 * Modules found in more than one entry of the same format (ESM entries together, CJS entries
 * together): `[{ module, entries }]`, empty when every shared module lives in a chunk.
 */
export function findDuplicateModules(packageDir, manifest) {
  const byFormat = new Map();
  for (const file of entryFiles(packageDir, manifest)) {
    if (!existsSync(file)) throw new Error(`${relative(packageDir, file)} is missing (run pnpm build)`);
    const format = file.endsWith('.cjs') ? 'cjs' : 'esm';
    const owners = byFormat.get(format) ?? new Map();
    byFormat.set(format, owners);
    for (const source of bundledSources(file, packageDir)) {
      const list = owners.get(source) ?? [];
      list.push(relative(packageDir, file));
      owners.set(source, list);
    }
  }
  const duplicates = [];
  for (const owners of byFormat.values()) {
    for (const [module, entries] of owners) if (entries.length > 1) duplicates.push({ module, entries });
  }
  return duplicates;
}
