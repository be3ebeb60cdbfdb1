import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { POSTGRES_URL, testSchema } from '@a2aplane/test-utils';
import { afterAll, describe, expect, it } from 'vitest';

// The built executable, as an operator's deploy job runs it (turbo builds the package before its tests).
const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const schema = testSchema('cli');

function a2a(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, out, err })));
}

// Dropped by a plain Node process: inside vitest's workers node-postgres would resolve pg-pool's ESM build.
afterAll(async () => {
  const drop = `const pg = require('pg'); const c = new pg.Client(process.env.URL);
    c.connect().then(() => c.query('DROP SCHEMA IF EXISTS "${schema}" CASCADE')).then(() => c.end());`;
  const child = spawn(process.execPath, ['-e', drop], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    env: { ...process.env, URL: POSTGRES_URL },
    stdio: 'inherit',
  });
  await new Promise((resolve) => child.once('close', resolve));
});

describe('a2a db migrate', () => {
  it('creates the schema, then finds nothing to do', async () => {
    const first = await a2a(['db', 'migrate', '--url', POSTGRES_URL, '--schema', schema, '--to', '1']);
    expect(first.err).toBe('');
    expect(first.out).toBe(`schema ${schema}: version 0 -> 1 (applied 1)\n`);
    const second = await a2a(['db', 'migrate', '--schema', schema, '--json'], { DATABASE_URL: POSTGRES_URL });
    expect(JSON.parse(second.out)).toEqual({ schema, from: 1, version: 4, applied: [2, 3, 4] });
    const third = await a2a(['db', 'migrate', '--url', POSTGRES_URL, '--schema', schema]);
    expect(third).toEqual({ code: 0, out: `schema ${schema} is at version 4; nothing to do\n`, err: '' });
  });

  it('refuses a missing or non-postgres URL as a usage error, never printing the URL', async () => {
    const missing = await a2a(['db', 'migrate'], { DATABASE_URL: '' });
    expect(missing.code).toBe(64);
    const wrong = await a2a(['db', 'migrate', '--url', 'https://user:hunter2@example.com/db']);
    expect(wrong.code).toBe(64);
    expect(wrong.err).not.toContain('hunter2');
    const unreachable = await a2a(['db', 'migrate', '--url', 'postgres://user:hunter2@127.0.0.1:1/db', '--schema', schema]);
    expect(unreachable.code).toBe(1);
    expect(unreachable.err).not.toContain('hunter2');
  });
});
