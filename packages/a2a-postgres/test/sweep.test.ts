import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresTaskEventBus } from '../src/bus/postgres-task-event-bus.js';
import { createPostgresTaskStore } from '../src/store/postgres-task-store.js';
import { testKeyring } from './keys.js';
import { connectTestPool, dropSchema, migratedSchema } from './postgres.js';

let pool: pg.Pool;
let schema: string;
beforeAll(async () => {
  pool = await connectTestPool('a2a-postgres sweep');
  schema = await migratedSchema(pool, 'sweep');
});
afterAll(async () => {
  await dropSchema(pool, schema);
  await pool.end();
});

const count = async (table: string, tenant: string): Promise<number> =>
  Number((await pool.query(`SELECT count(*) AS n FROM "${schema}".${table} WHERE tenant = $1`, [tenant])).rows[0].n);

describe('sweep', () => {
  it('deletes expired tasks with their push configs, send keys and event logs; keeps live ones', async () => {
    let clock = Date.now();
    const store = createPostgresTaskStore({
      pool,
      schema,
      pushConfigKeys: testKeyring(),
      ttlMs: 1_000,
      sweepIntervalMs: false,
      now: () => clock,
    });
    const bus = createPostgresTaskEventBus({ pool, schema, retentionMs: 1_000, now: () => clock });
    const tenant = `t-${randomUUID()}`;
    const done = { id: 'done', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' as const } };
    const live = { id: 'live', contextId: 'c', status: { state: 'TASK_STATE_WORKING' as const } };
    await store.upsert({ tenant, owner: 'o', task: done, updatedAt: clock }, { expectedRevision: 0 });
    await store.upsert({ tenant, owner: 'o', task: live, updatedAt: clock }, { expectedRevision: 0 });
    await store.putPushConfig({ tenant, taskId: 'done' }, { id: 'p', taskId: 'done', url: 'https://hook.example/x' });
    await store.claimSendKey({ tenant, owner: 'o', messageId: 'm', fingerprint: 'f' }, 'done');
    await bus.publish({ tenant, taskId: 'done' }, { event: { task: done }, final: true, revision: 1 });
    clock += 11 * 60_000; // past the terminal TTL, the send key's window and the log's retention
    // The task, the send key and the log's event (push configs and the log head go with them, uncounted).
    expect(await store.sweep()).toBeGreaterThanOrEqual(3);
    expect(await count('tasks', tenant)).toBe(1);
    expect(await count('push_configs', tenant)).toBe(0);
    expect(await count('send_keys', tenant)).toBe(0);
    expect(await count('task_logs', tenant)).toBe(0);
    expect(await count('task_events', tenant)).toBe(0);
    expect((await store.get({ tenant, taskId: 'live' }))?.revision).toBe(1);
    await bus.close();
  });

  it("deletes the runner rows of dead replicas (their lock is not held), never a live replica's", async () => {
    const store = createPostgresTaskStore({ pool, schema, pushConfigKeys: testKeyring(), sweepIntervalMs: false });
    const bus = createPostgresTaskEventBus({ pool, schema });
    const tenant = `t-${randomUUID()}`;
    const stop = bus.onCancel({ tenant, taskId: 'running' }, () => undefined);
    for (let i = 0; i < 100 && (await count('cancel_runners', tenant)) === 0; i++) await new Promise((r) => setTimeout(r, 20));
    // A replica that died: its lock keys are held by no session.
    const dead = randomBytes(4).readUInt32BE() >>> 1;
    await pool.query(`INSERT INTO "${schema}".cancel_runners (tenant, task_id, lock_hi, lock_lo) VALUES ($1, 'orphan', $2, $2)`, [
      tenant,
      dead,
    ]);
    expect(await count('cancel_runners', tenant)).toBe(2);
    await store.sweep();
    const left = await pool.query(`SELECT task_id FROM "${schema}".cancel_runners WHERE tenant = $1`, [tenant]);
    expect(left.rows).toEqual([{ task_id: 'running' }]);
    expect(await bus.requestCancel({ tenant, taskId: 'running' }, {})).toBe(true);
    stop();
    await bus.close();
  });
});
