import {
  type A2AServer,
  type AgentExecutor,
  createA2AServer,
  createAgentCard,
  createTaskUpdater,
  type TaskKey,
} from '@a2aplane/a2a-server-express';
import { replicaKillScenario, sleep, userMessage, waitFor } from '@a2aplane/test-utils';
import type { Task } from '@a2aplane/a2a-types';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLAIM, LEASE } from '../src/bus/lease-scripts.js';
import { createRedisTaskEventBus, type RedisTaskEventBus } from '../src/bus/redis-task-event-bus.js';
import type { OrphanRecoveryOptions } from '../src/bus/replica-lease.js';
import { createRedisConnection, type RedisConnection } from '../src/connection.js';
import { createKeys, taskRef } from '../src/keys.js';
import { createRedisTaskStore } from '../src/store/redis-task-store.js';
import { cleanKeys, connectTestRedis, REDIS_URL, type RedisProxy, startRedisProxy, type TestRedisClient, testKeyPrefix } from './redis.js';

// Short settings so a test waits seconds, not minutes; every wait below is a generous bound.
const LEASE_MS = 1_500;
const HEARTBEAT_MS = 250;
const SWEEP_MS = 100;

type Orphaned = { key: TaskKey; replicaId: string };

interface Replica {
  server: A2AServer;
  bus: RedisTaskEventBus;
  client: RedisConnection;
  /** What this replica's `onOrphanedTask` was told: the tasks it ended. */
  orphaned: Orphaned[];
}

/** Per task id: a gate the test opens to let the executor complete; records executors whose signal aborted. */
const gates = new Map<string, () => void>();
const aborted = new Set<string>();
/** Per task id: its executor's signal. */
const signals = new Map<string, AbortSignal>();
const gated: AgentExecutor = {
  async execute(context, events) {
    signals.set(context.taskId, context.signal);
    const task = createTaskUpdater(context, events);
    task.submit();
    task.startWork();
    task.addArtifact([{ text: 'started' }], { artifactId: 'progress' });
    const opened = new Promise<void>((resolve) => gates.set(context.taskId, resolve));
    const canceled = new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve(), { once: true }));
    await Promise.race([opened, canceled]);
    if (context.signal.aborted) {
      aborted.add(context.taskId);
      return;
    }
    task.addArtifact([{ text: 'done' }], { artifactId: 'progress', append: true, lastChunk: true });
    task.complete();
  },
};

const card = () =>
  createAgentCard({
    baseUrl: 'http://127.0.0.1',
    name: 'orphans',
    description: 'works until its gate opens',
    skills: [{ id: 'work', name: 'Work', description: 'works', tags: [] }],
    capabilities: { streaming: true },
  });

async function startTask(server: A2AServer): Promise<TaskKey> {
  const sent = await server.handle({
    method: 'SendMessage',
    params: { message: userMessage('work'), configuration: { returnImmediately: true } },
    version: '1.0',
  });
  if (sent.kind !== 'result') throw new Error(`expected a result, got ${JSON.stringify(sent)}`);
  return { tenant: '', taskId: ((sent.result as { task: Task }).task as Task).id };
}

describe('orphaned tasks: a replica that dies mid-task (needs Redis)', () => {
  let admin: TestRedisClient;
  const prefixes: string[] = [];
  const replicas: Replica[] = [];
  const proxies: RedisProxy[] = [];

  async function startReplica(
    keyPrefix: string,
    options: { url?: string; executor?: AgentExecutor; recovery?: Partial<OrphanRecoveryOptions> | false } = {},
  ): Promise<Replica> {
    const client = createRedisConnection({ url: options.url ?? REDIS_URL, maxReconnectDelayMs: 100 });
    await client.connect();
    const orphaned: Orphaned[] = [];
    const bus = createRedisTaskEventBus({
      client,
      keyPrefix,
      commandTimeoutMs: 500,
      orphanRecovery:
        options.recovery === false
          ? false
          : {
              leaseMs: LEASE_MS,
              heartbeatMs: HEARTBEAT_MS,
              sweepMs: SWEEP_MS,
              onOrphanedTask: (info) => orphaned.push(info),
              ...options.recovery,
            },
    });
    const server = createA2AServer({
      card: card(),
      executor: options.executor ?? gated,
      store: createRedisTaskStore({ client, keyPrefix, commandTimeoutMs: 500 }),
      eventBus: bus,
    });
    const replica = { server, bus, client, orphaned };
    replicas.push(replica);
    return replica;
  }

  const prefix = (name: string): string => {
    const p = testKeyPrefix(`orphans-${name}`);
    prefixes.push(p);
    return p;
  };
  const stateOf = async (replica: Replica, key: TaskKey) => (await replica.server.store.get(key))?.task.status.state;
  // Started = the first artifact is published (in the log), not only stored: the server stores a
  // burst of events first and then publishes them, so a cut between the two would fail the run.
  const started = async (replica: Replica, key: TaskKey) =>
    ((await replica.bus.read(key))?.events ?? []).some((entry) => entry.event.artifactUpdate !== undefined);
  /** The FAILED events in the task's log. */
  const failedEvents = async (replica: Replica, key: TaskKey) =>
    ((await replica.bus.read(key))?.events ?? []).filter((e) => e.event.statusUpdate?.status.state === 'TASK_STATE_FAILED');

  beforeAll(async () => {
    admin = await connectTestRedis('a2a-redis orphaned-task tests');
  });
  afterEach(async () => {
    for (const open of gates.values()) open();
    for (const r of replicas.splice(0)) {
      await r.server.close();
      await r.bus.close();
      if (r.client.isOpen) r.client.destroy();
    }
    for (const proxy of proxies.splice(0)) await proxy.close();
  });
  afterAll(async () => {
    for (const p of prefixes) await cleanKeys(admin, p);
    await admin.quit();
  });

  it('a replica child process SIGKILLed mid-task: a survivor ends the task FAILED (REPLICA_LOST) and its subscriber gets the final event', async () => {
    const keyPrefix = prefix('kill');
    const survivor = await startReplica(keyPrefix);
    const replicaId = `doomed-${process.pid}`;
    const { key } = await replicaKillScenario<{ url: string; replicaId: string }>({
      label: 'Redis',
      fixture: new URL('./fixtures/orphan-replica.ts', import.meta.url),
      env: {
        REDIS_URL,
        ORPHAN_PREFIX: keyPrefix,
        REPLICA_ID: replicaId,
        LEASE_MS: String(LEASE_MS),
        HEARTBEAT_MS: String(HEARTBEAT_MS),
        SWEEP_MS: String(SWEEP_MS),
      },
      survivor: { server: survivor.server, started: (key) => started(survivor, key), failedEvents: (key) => failedEvents(survivor, key) },
      failWithinMs: LEASE_MS + SWEEP_MS + 20_000,
    });
    // Told once the dead replica's record of the task is dropped too (just after the write).
    await waitFor('onOrphanedTask', () => survivor.orphaned.length > 0);
    expect(survivor.orphaned).toEqual([{ key, replicaId }]);
    // Nothing of the dead replica is left: its task set is empty and the registry forgot it.
    await waitFor('the registry to forget the dead replica', async () => (await admin.sMembers(`${keyPrefix}replicas`)).length === 1);
    // The child replica loads the server from source through tsx (seconds while every package's suite
    // runs at once), and the wait for the sweep alone may take LEASE_MS + SWEEP_MS + 20 s.
  }, 60_000);

  it('several replicas sweep at once: each orphaned task is failed by exactly one of them, once', async () => {
    const keyPrefix = prefix('race');
    const doomed = await startReplica(keyPrefix);
    const sweepers = [await startReplica(keyPrefix), await startReplica(keyPrefix), await startReplica(keyPrefix)];
    const keys: TaskKey[] = [];
    for (let i = 0; i < 8; i++) keys.push(await startTask(doomed.server));
    for (const key of keys) await waitFor('the task to start', () => started(doomed, key));
    // The replica dies: its heartbeat stops and its connection goes; its executors never write again.
    await doomed.bus.close();
    doomed.client.destroy();
    await waitFor('every task to end FAILED', async () => {
      for (const key of keys) if ((await stateOf(sweepers[0] as Replica, key)) !== 'TASK_STATE_FAILED') return false;
      return true;
    });
    await waitFor('onOrphanedTask of every task', () => sweepers.flatMap((s) => s.orphaned).length >= keys.length);
    const ended = sweepers.flatMap((s) => s.orphaned);
    expect(ended.map((o) => o.key.taskId).sort()).toEqual(keys.map((k) => k.taskId).sort());
    expect(new Set(ended.map((o) => o.replicaId))).toEqual(new Set([doomed.bus.replicaId]));
    for (const key of keys) expect(await failedEvents(sweepers[0] as Replica, key)).toHaveLength(1);
  });

  it('a live, slow task whose runner heartbeats is never swept, and completes', async () => {
    const keyPrefix = prefix('live');
    const runner = await startReplica(keyPrefix);
    const watcher = await startReplica(keyPrefix);
    const key = await startTask(runner.server);
    await waitFor('the task to start', () => started(runner, key));
    // Four leases: the watcher sweeps ~60 times meanwhile.
    await sleep(4 * LEASE_MS);
    expect(await stateOf(watcher, key)).toBe('TASK_STATE_WORKING');
    gates.get(key.taskId)?.();
    await waitFor('the task to complete', async () => (await stateOf(watcher, key)) === 'TASK_STATE_COMPLETED');
    expect(watcher.orphaned).toEqual([]);
    expect(runner.orphaned).toEqual([]);
  });

  it('after a Redis outage longer than the lease, heartbeats recover and no live task is swept by mistake', async () => {
    const keyPrefix = prefix('blip');
    const [toRunner, toWatcher] = [await startRedisProxy(), await startRedisProxy()];
    proxies.push(toRunner, toWatcher);
    const runner = await startReplica(keyPrefix, { url: toRunner.url });
    const watcher = await startReplica(keyPrefix, { url: toWatcher.url });
    const key = await startTask(runner.server);
    await waitFor('the task to start', () => started(runner, key));
    await sleep(LEASE_MS + 500); // the watcher may judge others now
    // Redis goes away for both replicas for two leases: every lease in Redis lapses.
    await toRunner.down();
    await toWatcher.down();
    await sleep(2 * LEASE_MS);
    expect(await admin.exists(`${keyPrefix}replica:${encodeURIComponent(runner.bus.replicaId as string)}`)).toBe(0);
    // The watcher is back first; the runner a moment later (well within a lease).
    await toWatcher.up();
    await sleep(300);
    await toRunner.up();
    await sleep(3 * LEASE_MS);
    expect(await stateOf(watcher, key)).toBe('TASK_STATE_WORKING');
    expect(watcher.orphaned).toEqual([]);
    expect(await admin.exists(`${keyPrefix}replica:${encodeURIComponent(runner.bus.replicaId as string)}`)).toBe(1);
    expect(await admin.sMembers(`${keyPrefix}replica-tasks:${encodeURIComponent(runner.bus.replicaId as string)}`)).toEqual([
      JSON.stringify(['', key.taskId]),
    ]);
    gates.get(key.taskId)?.();
    await waitFor('the task to complete', async () => (await stateOf(watcher, key)) === 'TASK_STATE_COMPLETED');
  });

  it('a replica cut off from Redis for less than the lease keeps its task', async () => {
    const keyPrefix = prefix('short');
    const toRunner = await startRedisProxy();
    proxies.push(toRunner);
    const runner = await startReplica(keyPrefix, { url: toRunner.url });
    const watcher = await startReplica(keyPrefix);
    const key = await startTask(runner.server);
    await waitFor('the task to start', () => started(runner, key));
    await sleep(LEASE_MS + 200); // the watcher judges others from now on
    // A third of the lease: well under leaseMs - heartbeatMs, with room for the reconnection.
    await toRunner.down();
    await sleep(LEASE_MS / 3);
    await toRunner.up();
    await sleep(2 * LEASE_MS);
    expect(await stateOf(watcher, key)).toBe('TASK_STATE_WORKING');
    expect(watcher.orphaned).toEqual([]);
    gates.get(key.taskId)?.();
    await waitFor('the task to complete', async () => (await stateOf(watcher, key)) === 'TASK_STATE_COMPLETED');
  });

  it('a replica cut off longer than the lease loses its task; back, it cannot overwrite the failure and its executor is aborted', async () => {
    const keyPrefix = prefix('partition');
    const toRunner = await startRedisProxy();
    proxies.push(toRunner);
    const runner = await startReplica(keyPrefix, { url: toRunner.url });
    const watcher = await startReplica(keyPrefix);
    const key = await startTask(runner.server);
    await waitFor('the task to start', () => started(runner, key));
    await toRunner.down();
    await waitFor('the survivor to end the task', async () => (await stateOf(watcher, key)) === 'TASK_STATE_FAILED');
    await waitFor('onOrphanedTask', () => watcher.orphaned.length > 0);
    expect(watcher.orphaned).toEqual([{ key, replicaId: runner.bus.replicaId }]);
    await toRunner.up();
    const runnerLease = `${keyPrefix}replica:${encodeURIComponent(runner.bus.replicaId as string)}`;
    await waitFor('the runner to reconnect and renew its lease', async () => (await admin.exists(runnerLease)) === 1);
    // The executor goes on and writes: the compare-and-set refuses it, the runner adopts the end and aborts.
    gates.get(key.taskId)?.();
    await waitFor('the runner to stop', () => runner.server.stats().liveTasks === 0);
    expect(signals.get(key.taskId)?.aborted).toBe(true);
    expect(await stateOf(watcher, key)).toBe('TASK_STATE_FAILED');
    const states = ((await watcher.bus.read(key))?.events ?? []).map((e) => e.event.statusUpdate?.status.state).filter(Boolean);
    expect(states.at(-1)).toBe('TASK_STATE_FAILED');
    expect(states).not.toContain('TASK_STATE_COMPLETED');
  });

  it('the lease is a key with a TTL refreshed by the heartbeat; closing the bus stops it and the lease expires', async () => {
    const keyPrefix = prefix('ttl');
    const replica = await startReplica(keyPrefix);
    const leaseKey = `${keyPrefix}replica:${encodeURIComponent(replica.bus.replicaId as string)}`;
    await waitFor('the first heartbeat', async () => (await admin.exists(leaseKey)) === 1);
    const ttl = await admin.pTTL(leaseKey);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(LEASE_MS);
    await sleep(2 * LEASE_MS);
    expect(await admin.exists(leaseKey)).toBe(1);
    // The registry of replicas expires too, the runner TTL after the last heartbeat: nothing stays for good.
    const registryTtl = await admin.pTTL(`${keyPrefix}replicas`);
    expect(registryTtl).toBeGreaterThan(LEASE_MS);
    await replica.bus.close();
    await waitFor('the lease to expire', async () => (await admin.exists(leaseKey)) === 0, 4 * LEASE_MS);
  });

  it('orphanRecovery: false records nothing and sweeps nothing', async () => {
    const keyPrefix = prefix('off');
    const replica = await startReplica(keyPrefix, { recovery: false });
    expect(replica.bus.replicaId).toBeUndefined();
    const key = await startTask(replica.server);
    await waitFor('the task to start', () => started(replica, key));
    expect(await admin.exists(`${keyPrefix}replicas`)).toBe(0);
    gates.get(key.taskId)?.();
    await waitFor('the task to complete', async () => (await stateOf(replica, key)) === 'TASK_STATE_COMPLETED');
    // A replica with recovery on dies; the one with it off leaves its task alone.
    const doomed = await startReplica(keyPrefix);
    const orphan = await startTask(doomed.server);
    await waitFor('the task to start', () => started(doomed, orphan));
    await doomed.bus.close();
    doomed.client.destroy();
    await sleep(3 * LEASE_MS);
    expect(await stateOf(replica, orphan)).toBe('TASK_STATE_WORKING');
  });

  it('the claim: none while the owner lease lives, exactly one of 20 concurrent claimers after, and a stale entry is dropped', async () => {
    const keys = createKeys(prefix('claim'));
    const [dead, other] = ['dead-replica', 'other-replica'];
    const task = { tenant: 't', taskId: 'task-1' };
    const ref = taskRef(task.tenant, task.taskId);
    const claim = (claimer: string, owner = dead) =>
      CLAIM.run(
        admin,
        [
          keys.replicaLease(owner),
          keys.replicaTasks(owner),
          keys.runner(task.tenant, task.taskId),
          keys.orphanClaim(task.tenant, task.taskId),
        ],
        [ref, owner, claimer, '5000'],
      );
    await LEASE.run(
      admin,
      [keys.replicaLease(dead), keys.replicas(), keys.replicaTasks(dead), keys.runner(task.tenant, task.taskId)],
      [dead, '100000', '0', '100000', ref],
    );
    expect(await claim('sweeper-0')).toBe(0);
    await admin.del(keys.replicaLease(dead));
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => claim(`sweeper-${i}`)));
    expect(outcomes.filter((o) => o === 1)).toHaveLength(1);
    // The task now runs on another replica (say a continuation there): the dead replica's entry is stale.
    await admin.del(keys.orphanClaim(task.tenant, task.taskId));
    await admin.set(keys.runner(task.tenant, task.taskId), other);
    expect(await claim('sweeper-0')).toBe(0);
    expect(await admin.sIsMember(keys.replicaTasks(dead), ref)).toBe(0);
  });

  it('rejects lease settings that cannot work (a heartbeat slower than half the lease)', () => {
    const client = createRedisConnection();
    expect(() => createRedisTaskEventBus({ client, keyPrefix: 'x:', orphanRecovery: { leaseMs: 1_000, heartbeatMs: 600 } })).toThrow(
      RangeError,
    );
    expect(() => createRedisTaskEventBus({ client, keyPrefix: 'x:', orphanRecovery: { leaseMs: 10 } })).toThrow(RangeError);
  });
});
