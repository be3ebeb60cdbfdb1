import {
  type A2AServer,
  type AgentExecutor,
  createA2AServer,
  createAgentCard,
  createTaskUpdater,
  type TaskKey,
} from '@a2aplane/a2a-server-express';
import type { Task } from '@a2aplane/a2a-types';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresTaskEventBus, type PostgresTaskEventBus } from '../src/bus/postgres-task-event-bus.js';
import { createPostgresTaskStore, type PostgresTaskStore } from '../src/store/postgres-task-store.js';
import { testKeyring } from './keys.js';
import { POSTGRES_URL, replicaKillScenario, sleep, startTcpProxy, type TcpProxy, userMessage, waitFor } from '@a2aplane/test-utils';
import { connectTestPool, dropSchema, migratedSchema } from './postgres.js';

// Short settings so a test waits seconds, not minutes; every wait below is a generous bound.
const GRACE_MS = 1_000;
const SWEEP_MS = 100;

interface Replica {
  server: A2AServer;
  bus: PostgresTaskEventBus;
  store: PostgresTaskStore;
  pool: pg.Pool;
  orphaned: TaskKey[];
}

/** Per task id: a gate the test opens to let the executor complete. */
const gates = new Map<string, () => void>();
const gated: AgentExecutor = {
  async execute(context, events) {
    const task = createTaskUpdater(context, events);
    task.submit();
    task.startWork();
    task.addArtifact([{ text: 'started' }], { artifactId: 'progress' });
    const opened = new Promise<void>((resolve) => gates.set(context.taskId, resolve));
    const canceled = new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve(), { once: true }));
    await Promise.race([opened, canceled]);
    if (context.signal.aborted) return;
    task.complete();
  },
};

describe('orphaned tasks on PostgreSQL: a replica that dies mid-task (decision 0132)', () => {
  let admin: pg.Pool;
  let schema: string;
  const replicas: Replica[] = [];
  const proxies: TcpProxy[] = [];

  async function startReplica(options: { recovery?: false; graceMs?: number; url?: string } = {}): Promise<Replica> {
    const pool = await connectTestPool('a2a-postgres orphaned tasks', {
      max: 6,
      ...(options.url ? { connectionString: options.url } : {}),
    });
    const orphaned: TaskKey[] = [];
    const bus = createPostgresTaskEventBus({
      pool,
      schema,
      orphanRecovery:
        options.recovery === false
          ? false
          : { graceMs: options.graceMs ?? GRACE_MS, sweepMs: SWEEP_MS, onOrphanedTask: (info) => orphaned.push(info.key) },
    });
    const store = createPostgresTaskStore({ pool, schema, pushConfigKeys: testKeyring(), sweepIntervalMs: false });
    const server = createA2AServer({
      card: createAgentCard({
        baseUrl: 'http://127.0.0.1',
        name: 'orphans',
        description: 'works until its gate opens',
        skills: [{ id: 'work', name: 'Work', description: 'works', tags: [] }],
        capabilities: { streaming: true },
      }),
      executor: gated,
      store,
      eventBus: bus,
    });
    const replica = { server, bus, store, pool, orphaned };
    replicas.push(replica);
    return replica;
  }

  const started = async (replica: Replica, key: TaskKey) =>
    ((await replica.bus.read(key))?.events ?? []).some((entry) => entry.event.artifactUpdate !== undefined);
  const failedEvents = async (replica: Replica, key: TaskKey) =>
    ((await replica.bus.read(key))?.events ?? []).filter((e) => e.event.statusUpdate?.status.state === 'TASK_STATE_FAILED');
  const runners = async (tenant: string): Promise<number> =>
    Number((await admin.query(`SELECT count(*) AS n FROM "${schema}".cancel_runners WHERE tenant = $1`, [tenant])).rows[0].n);

  beforeAll(async () => {
    admin = await connectTestPool('a2a-postgres orphaned tasks');
    schema = await migratedSchema(admin, 'orphans');
  });
  afterEach(async () => {
    for (const open of gates.values()) open();
    for (const r of replicas.splice(0)) {
      await r.server.close();
      await r.bus.close();
      r.store.close();
      await r.pool.end();
    }
    for (const proxy of proxies.splice(0)) await proxy.close();
  });
  afterAll(async () => {
    await dropSchema(admin, schema);
    await admin.end();
  });

  it('a replica child process SIGKILLed mid-task: a survivor ends the task FAILED (REPLICA_LOST) and its subscriber gets the final event', async () => {
    const survivor = await startReplica();
    const { key } = await replicaKillScenario({
      label: 'PostgreSQL',
      fixture: new URL('./fixtures/orphan-replica.ts', import.meta.url),
      env: { POSTGRES_URL, PG_SCHEMA: schema },
      survivor: { server: survivor.server, started: (key) => started(survivor, key), failedEvents: (key) => failedEvents(survivor, key) },
      afterStart: () => waitFor('the child to record that it runs the task', async () => (await runners('')) === 1),
      failWithinMs: GRACE_MS * 2 + 20_000,
    });
    await waitFor('onOrphanedTask', () => survivor.orphaned.length > 0);
    expect(survivor.orphaned).toEqual([key]);
    // Nothing of the dead replica is left.
    await waitFor('the runner row to go', async () => (await runners('')) === 0);
  }, 60_000);

  it('several replicas sweep at once: each orphaned task is failed by exactly one of them, once', async () => {
    const sweepers = [await startReplica(), await startReplica(), await startReplica()];
    const tenant = `race-${process.pid}`;
    const keys: TaskKey[] = [];
    // Eight live tasks whose runner rows name a session that no longer exists (its lock is free).
    for (let i = 0; i < 8; i++) {
      const task: Task = { id: `t${i}`, contextId: 'c', status: { state: 'TASK_STATE_WORKING' } };
      await sweepers[0]?.store.upsert({ tenant, owner: '', updatedAt: Date.now(), task }, { expectedRevision: 0 });
      await sweepers[0]?.bus.publish({ tenant, taskId: task.id }, { event: { task }, final: false, revision: 1 });
      await admin.query(`INSERT INTO "${schema}".cancel_runners (tenant, task_id, lock_hi, lock_lo) VALUES ($1, $2, 7, 7)`, [
        tenant,
        task.id,
      ]);
      keys.push({ tenant, taskId: task.id });
    }
    await waitFor('every orphan to end', async () => {
      const states = await Promise.all(keys.map(async (key) => (await sweepers[0]?.store.get(key))?.task.status.state));
      return states.every((state) => state === 'TASK_STATE_FAILED');
    });
    await waitFor('every runner row to go', async () => (await runners(tenant)) === 0);
    for (const key of keys) expect(await failedEvents(sweepers[0] as Replica, key)).toHaveLength(1);
    const told = sweepers.flatMap((r) => r.orphaned);
    expect(told).toHaveLength(keys.length);
    expect(new Set(told.map((k) => k.taskId)).size).toBe(keys.length);
  }, 60_000);

  it('a replica whose connection drops and comes back within the grace keeps its task, which completes', async () => {
    const target = new URL(POSTGRES_URL);
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    proxies.push(proxy);
    const viaProxy = new URL(POSTGRES_URL);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const grace = 3_000;
    const runner = await startReplica({ recovery: false, url: viaProxy.href });
    const watcher = await startReplica({ graceMs: grace });
    const sent = await runner.server.handle({
      method: 'SendMessage',
      params: { message: userMessage('work'), configuration: { returnImmediately: true } },
      version: '1.0',
    });
    if (sent.kind !== 'result') throw new Error('expected a result');
    const key = { tenant: '', taskId: ((sent.result as { task: Task }).task as Task).id };
    await waitFor('the task to start', () => started(runner, key));
    await waitFor('the runner row', async () => (await runners('')) === 1);
    // The watcher's own session has been up for a grace: it judges others from now on.
    await sleep(grace + SWEEP_MS * 3);
    // Cut the runner off: its session ends (its lock goes); it reconnects once the proxy is back.
    await proxy.down();
    await sleep(600);
    await proxy.up();
    await waitFor('the runner to record its row again under its new session', async () => {
      const { rows } = await admin.query(
        `SELECT 1 FROM "${schema}".cancel_runners c WHERE c.task_id = $1 AND EXISTS (SELECT 1 FROM pg_locks k
          WHERE k.locktype = 'advisory' AND k.granted AND k.classid = c.lock_hi::oid AND k.objid = c.lock_lo::oid AND k.objsubid = 2)`,
        [key.taskId],
      );
      return rows.length === 1;
    });
    await sleep(SWEEP_MS * 5);
    expect((await watcher.store.get(key))?.task.status.state).toBe('TASK_STATE_WORKING');
    expect(watcher.orphaned).toEqual([]);
    gates.get(key.taskId)?.();
    await waitFor('the task to complete', async () => (await watcher.store.get(key))?.task.status.state === 'TASK_STATE_COMPLETED');
  }, 60_000);
});
