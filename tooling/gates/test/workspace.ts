import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export interface WorkspacePackage {
  dir: string;
  path: string;
  manifest: Record<string, unknown> & { name: string; exports: Record<string, unknown>; private?: boolean };
}

/**
 * Every package under `roots` (default packages/) that is published (not private). apps/ holds one
 * published package, the console (`@a2aplane/a2a-console`, decision 0120); the rest there is private.
 */
export function publishedPackages(roots: readonly string[] = ['packages']): WorkspacePackage[] {
  return roots
    .flatMap((root) => {
      const rootDir = join(repoRoot, root);
      return readdirSync(rootDir)
        .filter((dir) => existsSync(join(rootDir, dir, 'package.json')))
        .map((dir) => {
          const path = join(rootDir, dir);
          return { dir, path, manifest: JSON.parse(readFileSync(join(path, 'package.json'), 'utf8')) };
        });
    })
    .filter((pkg) => !pkg.manifest.private)
    .sort((a, b) => a.dir.localeCompare(b.dir));
}
