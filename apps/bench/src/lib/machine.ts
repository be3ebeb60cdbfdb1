import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryBytes: number;
  platform: string;
  node: string;
  versions: Record<string, string>;
  /** The commit measured, and whether packages/ had uncommitted changes (the suites run the dist built from them). */
  git: { commit: string; dirtyPackageFiles: number };
}

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

function versionOf(path: string): string {
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

export function machineInfo(): MachineInfo {
  const versions: Record<string, string> = {};
  for (const pkg of [
    'a2a-types',
    'a2a-identity',
    'a2a-governance',
    'a2a-routing',
    'a2a-rulake-artifacts',
    'a2a-server-express',
    'a2a-client',
  ]) {
    versions[`@a2aplane/${pkg}`] = versionOf(`${ROOT}packages/${pkg}/package.json`);
  }
  const modules = `${ROOT}apps/bench/node_modules/`;
  for (const dep of ['@a2a-js/sdk', 'express', 'autocannon', 'tinybench', 'esbuild', '@grpc/grpc-js']) {
    versions[dep] = versionOf(`${modules}${dep}/package.json`);
  }
  let git = { commit: 'unknown', dirtyPackageFiles: 0 };
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'packages'], { cwd: ROOT, encoding: 'utf8' });
    git = { commit, dirtyPackageFiles: dirty.split('\n').filter(Boolean).length };
  } catch {
    // not a git checkout: leave unknown
  }
  return {
    git,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    cores: os.cpus().length,
    memoryBytes: os.totalmem(),
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    node: process.version,
    versions,
  };
}
