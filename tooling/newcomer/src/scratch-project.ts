import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

export interface PackedPackages {
  /** npm name -> absolute path of its tarball. */
  tarballs: Map<string, string>;
}

/** Packs every published package of the workspace (what `npm publish` would send) into `into`. */
export function packWorkspace(root: string, into: string): PackedPackages {
  mkdirSync(into, { recursive: true });
  const tarballs = new Map<string, string>();
  for (const dir of readdirSync(join(root, 'packages'))) {
    const path = join(root, 'packages', dir);
    const manifestPath = join(path, 'package.json');
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { name: string; private?: boolean };
    if (manifest.private) continue;
    if (!existsSync(join(path, 'dist'))) throw new Error(`${manifest.name} has no dist: run \`pnpm build\` before the docs tests`);
    const before = new Set(readdirSync(into));
    execFileSync('pnpm', ['pack', '--pack-destination', into], { cwd: path, stdio: 'pipe' });
    const added = readdirSync(into).find((file) => !before.has(file) && file.endsWith('.tgz'));
    if (!added) throw new Error(`pnpm pack of ${manifest.name} wrote no tarball`);
    tarballs.set(manifest.name, join(into, added));
  }
  return { tarballs };
}

/**
 * An empty npm project outside the repository, as a newcomer starts one. The tarballs are copied into it
 * (`.packs/`), and its `overrides` point every @a2aplane package at its tarball, so the packages' own
 * dependencies on each other resolve as they would from the registry once published. Paths are relative
 * to the project: npm requires an override of a direct dependency to be spelled as the dependency is.
 */
export function createScratchProject(packed: PackedPackages): { dir: string; packed: PackedPackages } {
  const dir = mkdtempSync(join(tmpdir(), 'a2aplane-newcomer-'));
  mkdirSync(join(dir, '.packs'));
  const local = new Map<string, string>();
  for (const [name, tarball] of packed.tarballs) {
    copyFileSync(tarball, join(dir, '.packs', basename(tarball)));
    local.set(name, `./.packs/${basename(tarball)}`);
  }
  const overrides = Object.fromEntries([...local].map(([name, path]) => [name, `file:${path.slice(2)}`]));
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'newcomer', private: true, type: 'module', overrides }, null, 2)}\n`);
  return { dir, packed: { tarballs: local } };
}

/** `npm install @a2aplane/a2a-client zod` -> the same install with the tarball in place of the registry name. */
export function withTarballs(command: string, packed: PackedPackages): string {
  if (!/^npm (install|i|add)\b/.test(command)) return command;
  return command.replace(/(?<=\s)(@a2aplane\/[a-z0-9-]+)(@[^\s]+)?/g, (whole, name: string) => packed.tarballs.get(name) ?? whole);
}
