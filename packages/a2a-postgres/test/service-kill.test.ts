import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresTaskEventBus } from '../src/bus/postgres-task-event-bus.js';
import { migrate } from '../src/migrate/migrate.js';
import { createStaticKeyring } from '../src/push/keyring.js';
import { createPostgresTaskStore } from '../src/store/postgres-task-store.js';
import { createPrivatePostgres, type PrivatePostgres } from './private-postgres.js';

let server: PrivatePostgres;
const keys = createStaticKeyring({ currentKeyId: 'k', keys: { k: randomBytes(32) } });

beforeAll(async () => {
  server = await createPrivatePostgres();
  await server.start();
}, 60_000);
afterAll(async () => {
  await server?.destroy();
});

const pool = (): pg.Pool => {
  const p = new pg.Pool({ connectionString: server.url, max: 4 });
  p.on('error', () => undefined);
  return p;
};

describe('kill -9 of PostgreSQL itself (defaults: fsync and synchronous_commit on)', () => {
  it('loses no acknowledged task, push config or event', async () => {
    const before = pool();
    await migrate(before, { schema: 'a2a' });
    const store = createPostgresTaskStore({ pool: before, pushConfigKeys: keys, sweepIntervalMs: false });
    const bus = createPostgresTaskEventBus({ pool: before });
    const commit = bus.committerFor?.(store);
    expect(commit).toBeDefined();
    const acknowledged: { taskId: string; revision: number; ids: string[] }[] = [];
    for (let i = 0; i < 40; i++) {
      const taskId = `task-${i}`;
      const task = { id: taskId, contextId: 'c', status: { state: 'TASK_STATE_WORKING' as const } };
      const created = await commit?.({ tenant: 't', owner: 'o', task, updatedAt: Date.now() }, { expectedRevision: 0 }, [
        { event: { task }, final: false },
      ]);
      const ended = { ...task, status: { state: 'TASK_STATE_COMPLETED' as const } };
      const done = await commit?.({ tenant: 't', owner: 'o', task: ended, updatedAt: Date.now() }, { expectedRevision: 1 }, [
        { event: { statusUpdate: { taskId, contextId: 'c', status: ended.status } }, final: true },
      ]);
      if (i % 10 === 0)
        await store.putPushConfig({ tenant: 't', taskId }, { id: 'p', taskId, url: 'https://hook.example/x', token: `tok-${i}` });
      acknowledged.push({ taskId, revision: done?.revision ?? 0, ids: [...(created?.ids ?? []), ...(done?.ids ?? [])] });
    }
    // Killed right after the last acknowledgement.
    await server.killHard();
    await bus.close();
    await before.end().catch(() => undefined);
    await server.start();

    const after = pool();
    const reread = createPostgresTaskStore({ pool: after, pushConfigKeys: keys, sweepIntervalMs: false });
    const rebus = createPostgresTaskEventBus({ pool: after });
    for (const [i, ack] of acknowledged.entries()) {
      const key = { tenant: 't', taskId: ack.taskId };
      const stored = await reread.get(key);
      expect(stored?.revision).toBe(ack.revision);
      expect(stored?.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect((await rebus.read(key))?.events.map((e) => e.id)).toEqual(ack.ids);
      if (i % 10 === 0) expect((await reread.listPushConfigs(key))[0]?.token).toBe(`tok-${i}`);
    }
    await rebus.close();
    await after.end();
  }, 90_000);
});
