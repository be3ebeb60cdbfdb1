import { freePort } from '@a2aplane/test-utils';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A PostgreSQL server of the test's own (its data directory under the OS temp dir, its own port on
 * 127.0.0.1), so a test can kill -9 it without touching the machine's shared server. Runs as the
 * `postgres` user when the tests run as root (PostgreSQL refuses root).
 */
export interface PrivatePostgres {
  url: string;
  start(): Promise<void>;
  /** SIGKILL to the server and every backend (its process group): nothing gets to flush or shut down. */
  killHard(): Promise<void>;
  /** Stops it and deletes its data directory. */
  destroy(): Promise<void>;
}

function binDir(): string {
  try {
    return execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
  } catch {
    const root = '/usr/lib/postgresql';
    const version = existsSync(root) ? readdirSync(root).sort().at(-1) : undefined;
    if (version === undefined) throw new Error('needs the PostgreSQL server binaries (initdb, postgres): install postgresql');
    return join(root, version, 'bin');
  }
}

export async function createPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir();
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'a2a-pg-'));
  const data = join(dir, 'data');
  const owner = asRoot ? Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()) : undefined;
  if (owner !== undefined) chownSync(dir, owner, owner);
  const command = (file: string, args: string[]): [string, string[]] =>
    asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, file), ...args]] : [join(bin, file), args];
  const [initdb, initArgs] = command('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  execFileSync(initdb, initArgs, { stdio: 'ignore' });
  const port = await freePort();
  let server: ChildProcess | undefined;
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;

  async function start(): Promise<void> {
    // Defaults for durability (fsync, synchronous_commit, full_page_writes all on); no Unix socket outside the temp dir.
    const [file, args] = command('postgres', ['-D', data, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-k', dir]);
    server = spawn(file, args, { detached: true, stdio: 'ignore' });
    const deadline = Date.now() + 30_000;
    for (;;) {
      try {
        execFileSync(join(bin, 'pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(port), '-t', '1']);
        return;
      } catch {
        if (Date.now() > deadline) throw new Error('the private PostgreSQL did not come up within 30 s');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  async function killHard(): Promise<void> {
    const child = server;
    server = undefined;
    if (child?.pid === undefined) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(-child.pid, 'SIGKILL');
    await exited;
    // The backends are in the same process group; wait until none holds the port any more.
    for (let i = 0; i < 100; i++) {
      try {
        execFileSync('pgrep', ['-g', String(child.pid)]);
        await new Promise((resolve) => setTimeout(resolve, 50));
      } catch {
        return;
      }
    }
  }

  return {
    url,
    start,
    killHard,
    async destroy() {
      await killHard();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
