import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export interface WorkspacePackage {
  dir: string;
  path: string;
  manifest: Record<string, unknown> & { name: string; exports: Record<string, unknown>; private?: boolean };
}

/** Every package under packages/ that is published (not private). */
export function publishedPackages(): WorkspacePackage[] {
  const packagesDir = join(repoRoot, 'packages');
  return readdirSync(packagesDir)
    .filter((dir) => existsSync(join(packagesDir, dir, 'package.json')))
    .map((dir) => {
      const path = join(packagesDir, dir);
      return { dir, path, manifest: JSON.parse(readFileSync(join(path, 'package.json'), 'utf8')) };
    })
    .filter((pkg) => !pkg.manifest.private)
    .sort((a, b) => a.dir.localeCompare(b.dir));
}
