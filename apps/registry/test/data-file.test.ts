import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sampleAgentRecord } from '@a2aplane/a2a-registry/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { storeChoice } from '../src/store.js';

const appDir = fileURLToPath(new URL('..', import.meta.url));
const dir = await mkdtemp(join(tmpdir(), 'registry-app-data-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Runs `src/main.ts` as `pnpm start` does; resolves its URL (first stdout line) or its exit. */
function startApp(argv: string[]) {
  const child = spawn(process.execPath, ['--conditions=@a2aplane/source', '--import', 'tsx', 'src/main.ts', ...argv], {
    cwd: appDir,
    env: { ...process.env, PORT: '0', REGISTRY_NO_PROBE: '1', REGISTRY_DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = new Promise<string | undefined>((resolve) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.includes('\n')) resolve(out.split('\n')[0]?.trim());
    });
    void exited.then(() => resolve(undefined));
  });
  return {
    url,
    exited,
    err: () => err,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

describe('apps/registry --data FILE', () => {
  it('serves the agents of the file and keeps it', async () => {
    const data = join(dir, 'agents.json');
    const record = { ...sampleAgentRecord({ skills: ['translate'] }), revision: 3 };
    const text = `${JSON.stringify({ format: 'a2aplane-registry', version: 1, agents: [record] })}\n`;
    await writeFile(data, text);
    const app = startApp(['--data', data]);
    const url = await app.url;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const listed = (await (await fetch(`${url}/agents?skill=translate`)).json()) as { agents: Array<{ agentId: string }> };
    expect(listed.agents.map((agent) => agent.agentId)).toEqual([record.agentId]);
    expect(await app.stop()).toBe(0);
    expect(await readFile(data, 'utf8')).toBe(text);
  });

  it('stops with a clear error on a corrupt file (exit 1)', async () => {
    const data = join(dir, 'corrupt.json');
    await writeFile(data, '{"format":');
    const app = startApp(['--data', data]);
    expect(await app.url).toBeUndefined();
    expect(await app.exited).toBe(1);
    expect(app.err()).toContain(`registry file ${data}: is not JSON`);
  });

  it('chooses memory, a file or PostgreSQL, never both of the last two', () => {
    expect(storeChoice({}, [])).toEqual({ kind: 'memory' });
    expect(storeChoice({}, ['--data', 'a.json'])).toEqual({ kind: 'file', path: 'a.json' });
    expect(storeChoice({ REGISTRY_DATA_FILE: 'b.json' }, [])).toEqual({ kind: 'file', path: 'b.json' });
    expect(storeChoice({ REGISTRY_DATABASE_URL: 'postgres://db/x' }, [])).toEqual({
      kind: 'postgres',
      connectionString: 'postgres://db/x',
    });
    expect(() => storeChoice({ REGISTRY_DATABASE_URL: 'postgres://db/x' }, ['--data', 'a.json'])).toThrow(/not both/);
    expect(() => storeChoice({}, ['--bogus'])).toThrow();
  });
});
