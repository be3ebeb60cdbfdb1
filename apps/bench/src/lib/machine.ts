import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { mib } from './format.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const PACKAGES = ['a2a-types', 'a2a-identity', 'a2a-governance', 'a2a-routing', 'a2a-rulake-artifacts', 'a2a-server-express', 'a2a-client'];
const DEPENDENCIES = ['@a2a-js/sdk', 'express', 'autocannon', 'tinybench', 'esbuild', '@grpc/grpc-js'];

function versionOf(path: string): string {
  try {
    return (JSON.parse(readFileSync(`${ROOT}${path}/package.json`, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/** Report rows: the machine, the commit (plus the uncommitted files under packages/: the suites run the dist built from them), the versions. */
export function machineRows(): string[][] {
  let commit = 'unknown';
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' });
    const dirty = git('status', '--porcelain', '--', 'packages').split('\n').filter(Boolean).length;
    commit = `${git('rev-parse', '--short', 'HEAD').trim()}${dirty > 0 ? ` plus ${dirty} uncommitted files under packages/` : ''}`;
  } catch {
    // not a git checkout: leave unknown
  }
  const versions = [
    ...PACKAGES.map((pkg) => `@a2aplane/${pkg} ${versionOf(`packages/${pkg}`)}`),
    ...DEPENDENCIES.map((dep) => `${dep} ${versionOf(`apps/bench/node_modules/${dep}`)}`),
  ];
  return [
    ['CPU', `${os.cpus()[0]?.model ?? 'unknown'}, ${os.cpus().length} cores, ${mib(os.totalmem())}`],
    ['OS, Node', `${os.platform()} ${os.release()} ${os.arch()}, ${process.version}`],
    ['commit measured', commit],
    ['versions', versions.join(', ')],
  ];
}
