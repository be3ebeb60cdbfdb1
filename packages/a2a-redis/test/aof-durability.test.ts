import { freePort } from '@a2aplane/test-utils';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'redis';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisTaskEventBus } from '../src/bus/redis-task-event-bus.js';
import { createRedisTaskStore } from '../src/store/redis-task-store.js';

// What docs/replicas.md says an acknowledged write survives when Redis itself is killed with
// SIGKILL, per persistence setting (decision 0076). Each case runs a redis-server of its own (a temp
// dir, a free port): the machine's shared Redis is never touched.

const dirs: string[] = [];
const servers: ChildProcess[] = [];
afterAll(() => {
  for (const server of servers) server.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function startRedis(dir: string, port: number, persistence: string[]): Promise<ChildProcess> {
  const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', ...persistence], {
    stdio: 'ignore',
  });
  servers.push(server);
  for (let i = 0; i < 100; i++) {
    const client = createClient({ url: `redis://127.0.0.1:${port}`, socket: { reconnectStrategy: false } });
    client.on('error', () => undefined);
    try {
      await client.connect();
      // Loading the AOF answers LOADING; wait until it serves.
      await client.get('ready');
      await client.destroy();
      return server;
    } catch {
      if (client.isOpen) client.destroy();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error('redis-server did not come up (is redis-server 7 installed?)');
}

/** Writes 30 tasks with an event each (all acknowledged), SIGKILLs Redis, restarts it on the same files, counts what is left. */
async function survivors(persistence: string[]): Promise<{ tasks: number; events: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-redis-aof-'));
  dirs.push(dir);
  const port = await freePort();
  const first = await startRedis(dir, port, persistence);
  const client = createClient({ url: `redis://127.0.0.1:${port}`, socket: { reconnectStrategy: false } });
  client.on('error', () => undefined);
  await client.connect();
  const store = createRedisTaskStore({ client, keyPrefix: 'aof:' });
  const bus = createRedisTaskEventBus({ client, keyPrefix: 'aof:', orphanRecovery: false });
  const commit = bus.committerFor?.(store);
  for (let i = 0; i < 30; i++) {
    const task = { id: `t${i}`, contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' as const } };
    await commit?.({ tenant: '', owner: 'o', task, updatedAt: Date.now() }, { expectedRevision: 0 }, [{ event: { task }, final: true }]);
  }
  const exited = new Promise((resolve) => first.once('exit', resolve));
  first.kill('SIGKILL');
  await exited;
  await bus.close();
  // Without reconnects the client may already have closed itself when Redis died.
  if (client.isOpen) client.destroy();
  await startRedis(dir, port, persistence);
  const after = createClient({ url: `redis://127.0.0.1:${port}` });
  after.on('error', () => undefined);
  await after.connect();
  const reread = createRedisTaskStore({ client: after, keyPrefix: 'aof:' });
  const rebus = createRedisTaskEventBus({ client: after, keyPrefix: 'aof:', orphanRecovery: false });
  let tasks = 0;
  let events = 0;
  for (let i = 0; i < 30; i++) {
    if (await reread.get({ tenant: '', taskId: `t${i}` })) tasks += 1;
    events += (await rebus.read({ tenant: '', taskId: `t${i}` }))?.events.length ?? 0;
  }
  await rebus.close();
  after.destroy();
  return { tasks, events };
}

describe('kill -9 of Redis between an acknowledgement and the next read', () => {
  it('without persistence (appendonly no, save ""): everything acknowledged is lost', async () => {
    expect(await survivors(['--appendonly', 'no'])).toEqual({ tasks: 0, events: 0 });
  }, 30_000);

  it('AOF appendfsync everysec: nothing acknowledged is lost (the AOF is written before the reply)', async () => {
    expect(await survivors(['--appendonly', 'yes', '--appendfsync', 'everysec'])).toEqual({ tasks: 30, events: 30 });
  }, 30_000);

  it('AOF appendfsync always: nothing acknowledged is lost', async () => {
    expect(await survivors(['--appendonly', 'yes', '--appendfsync', 'always'])).toEqual({ tasks: 30, events: 30 });
  }, 30_000);
});
