import { type TaskRecord, TaskRevisionConflictError, TaskStoreFullError } from '@a2aplane/a2a-server-express';
import type { Task } from '@a2aplane/a2a-types';

type TaskState = Task['status']['state'];
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisTaskStore } from '../src/store/redis-task-store.js';
import { cleanKeys, connectTestRedis, testKeyPrefix } from './redis.js';

type Client = Awaited<ReturnType<typeof connectTestRedis>>;

const record = (taskId: string, state: TaskState = 'TASK_STATE_WORKING', extra: Partial<TaskRecord> = {}): TaskRecord => ({
  tenant: 't1',
  owner: 'alice',
  updatedAt: 1_000,
  task: { id: taskId, contextId: 'ctx-1', status: { state, timestamp: new Date(1_000).toISOString() } },
  ...extra,
});

describe('createRedisTaskStore (needs Redis)', () => {
  let client: Client;
  let other: Client;
  const prefixes: string[] = [];
  const fresh = (options: Partial<Parameters<typeof createRedisTaskStore>[0]> = {}, on?: Client) => {
    const keyPrefix = testKeyPrefix('store');
    prefixes.push(keyPrefix);
    return createRedisTaskStore({ client: on ?? client, keyPrefix, ...options });
  };

  beforeAll(async () => {
    client = await connectTestRedis('a2a-redis task store tests');
    other = await connectTestRedis('a2a-redis task store tests');
  });
  afterAll(async () => {
    for (const p of prefixes) await cleanKeys(client, p);
    await client.quit();
    await other.quit();
  });

  it('creates at revision 1, bumps by one per write, and refuses a stale or duplicate create (CAS)', async () => {
    const store = fresh();
    expect(await store.upsert(record('a'), { expectedRevision: 0 })).toBe(1);
    const conflict = await store.upsert(record('a'), { expectedRevision: 0 }).catch((e: unknown) => e);
    expect(TaskRevisionConflictError.isInstance(conflict)).toBe(true);
    expect((conflict as TaskRevisionConflictError).actualRevision).toBe(1);
    expect(await store.upsert(record('a', 'TASK_STATE_COMPLETED'), { expectedRevision: 1 })).toBe(2);
    const stale = await store.upsert(record('a', 'TASK_STATE_FAILED'), { expectedRevision: 1 }).catch((e: unknown) => e);
    expect(TaskRevisionConflictError.isInstance(stale)).toBe(true);
    const stored = await store.get({ tenant: 't1', taskId: 'a' });
    expect(stored?.revision).toBe(2);
    expect(stored?.task.status.state).toBe('TASK_STATE_COMPLETED');
    // Updating a task that does not exist is a conflict too (stored revision 0).
    const missing = await store.upsert(record('nope'), { expectedRevision: 3 }).catch((e: unknown) => e);
    expect((missing as TaskRevisionConflictError).actualRevision).toBe(0);
  });

  it('two replicas (two clients) racing the same revision: exactly one write wins', async () => {
    const a = fresh();
    const b = createRedisTaskStore({ client: other, keyPrefix: a.keys.prefix });
    await a.upsert(record('race'), { expectedRevision: 0 });
    for (let round = 1; round <= 20; round++) {
      const results = await Promise.allSettled([
        a.upsert(record('race', 'TASK_STATE_WORKING', { updatedAt: round }), { expectedRevision: round }),
        b.upsert(record('race', 'TASK_STATE_WORKING', { updatedAt: -round }), { expectedRevision: round }),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(TaskRevisionConflictError.isInstance(lost.reason)).toBe(true);
    }
    expect((await b.get({ tenant: 't1', taskId: 'race' }))?.revision).toBe(21);
  });

  it('ignores a revision handed in with the record and returns copies', async () => {
    const store = fresh();
    await store.upsert({ ...record('r'), revision: 99 } as TaskRecord, { expectedRevision: 0 });
    const got = await store.get({ tenant: 't1', taskId: 'r' });
    expect(got?.revision).toBe(1);
    if (got) got.task.status.state = 'TASK_STATE_FAILED';
    expect((await store.get({ tenant: 't1', taskId: 'r' }))?.task.status.state).toBe('TASK_STATE_WORKING');
  });

  it('isolates tenants and key prefixes', async () => {
    const store = fresh();
    await store.upsert(record('x'), { expectedRevision: 0 });
    expect(await store.get({ tenant: 't2', taskId: 'x' })).toBeUndefined();
    expect(await fresh().get({ tenant: 't1', taskId: 'x' })).toBeUndefined();
    // Ids with separators cannot reach another task's keys.
    await store.upsert({ ...record('y:z'), tenant: 'a:b' }, { expectedRevision: 0 });
    expect(await store.get({ tenant: 'a', taskId: 'b:y:z' })).toBeUndefined();
  });

  it('expires terminal tasks after ttlMs, keeps working ones', async () => {
    const store = fresh({ ttlMs: 150 });
    await store.upsert(record('done', 'TASK_STATE_COMPLETED'), { expectedRevision: 0 });
    await store.upsert(record('busy'), { expectedRevision: 0 });
    await new Promise((r) => setTimeout(r, 300));
    expect(await store.get({ tenant: 't1', taskId: 'done' })).toBeUndefined();
    expect(await store.get({ tenant: 't1', taskId: 'busy' })).toBeDefined();
    const page = await store.list({ tenant: 't1', owner: 'alice', pageSize: 10 });
    expect(page?.records.map((r) => r.task.id)).toEqual(['busy']);
    expect(page?.totalSize).toBe(1);
  });

  it('drops the ListTasks entries of tasks that expired by TTL as new tasks arrive, for an owner that never lists', async () => {
    // The store's clock, not the wall clock, decides what has expired: a slow machine cannot expire
    // the first tasks while the rest are written.
    let clock = Date.now();
    const store = fresh({ ttlMs: 10_000, now: () => clock });
    const summaryKey = store.keys.summary('t1', 'alice');
    for (let i = 0; i < 50; i++) await store.upsert(record(`old-${i}`, 'TASK_STATE_COMPLETED'), { expectedRevision: 0 });
    expect(Number(await client.sendCommand(['HLEN', summaryKey]))).toBe(50);
    clock += 20_000;
    for (let i = 0; i < 60; i++) await store.upsert(record(`new-${i}`), { expectedRevision: 0 });
    // Each new task checks 8 random entries: the chance that more than 5 of the 50 expired ones
    // survive 60 such checks is far below 1e-9. Live entries are never dropped.
    const fields = (await client.sendCommand(['HKEYS', summaryKey])) as string[];
    expect(fields.filter((f) => f.startsWith('new-'))).toHaveLength(60);
    expect(fields.filter((f) => f.startsWith('old-')).length).toBeLessThanOrEqual(5);
  });

  it('gives the ListTasks index and the capacity sets a TTL (the longer of ttlMs and liveTtlMs), so a stopped deployment leaves nothing for good', async () => {
    const store = fresh({ ttlMs: 5_000, liveTtlMs: 60_000 });
    await store.upsert(record('w'), { expectedRevision: 0 });
    await store.upsert(record('d', 'TASK_STATE_COMPLETED'), { expectedRevision: 0 });
    for (const key of [store.keys.summary('t1', 'alice'), store.keys.live(), store.keys.ended()]) {
      const ttl = Number(await client.sendCommand(['PTTL', key]));
      expect(ttl).toBeGreaterThan(50_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
    }
    const longerTerminal = fresh({ ttlMs: 90_000, liveTtlMs: 1_000 });
    await longerTerminal.upsert(record('d', 'TASK_STATE_COMPLETED'), { expectedRevision: 0 });
    expect(Number(await client.sendCommand(['PTTL', longerTerminal.keys.summary('t1', 'alice')]))).toBeGreaterThan(80_000);
    expect(Number(await client.sendCommand(['PTTL', longerTerminal.keys.ended()]))).toBeGreaterThan(80_000);
  });

  it('at maxTasks evicts the task that ended first, and refuses a new task (TaskStoreFullError, 429) when all are live', async () => {
    // One caller here, without a share (Infinity: none).
    const store = fresh({ maxTasks: 2, maxTasksPerOwner: Number.POSITIVE_INFINITY });
    await store.upsert(record('1'), { expectedRevision: 0 });
    await store.upsert(record('2'), { expectedRevision: 0 });
    const full = await store.upsert(record('3'), { expectedRevision: 0 }).catch((e: unknown) => e);
    expect(full).toBeInstanceOf(TaskStoreFullError);
    expect((full as TaskStoreFullError).limit).toBe('maxTasks');
    expect((full as TaskStoreFullError).httpStatus).toBe(429);
    await store.upsert(record('1', 'TASK_STATE_COMPLETED'), { expectedRevision: 1 });
    expect(await store.upsert(record('3'), { expectedRevision: 0 })).toBe(1);
    expect(await store.get({ tenant: 't1', taskId: '1' })).toBeUndefined();
    expect((await store.list({ tenant: 't1', owner: 'alice', pageSize: 10 }))?.totalSize).toBe(2);
    // Writes to existing tasks are never refused for the count.
    expect(await store.upsert(record('2'), { expectedRevision: 1 })).toBe(2);
  });

  it('refuses a record larger than maxTaskBytes, but lets a slightly larger final write end the task', async () => {
    const store = fresh({ maxTaskBytes: 2_000 });
    const big = record('big');
    big.task.metadata = { blob: 'x'.repeat(3_000) };
    const error = await store.upsert(big, { expectedRevision: 0 }).catch((e: unknown) => e);
    expect((error as TaskStoreFullError).limit).toBe('maxTaskBytes');
    await store.upsert(record('edge'), { expectedRevision: 0 });
    const ending = record('edge', 'TASK_STATE_FAILED');
    ending.task.metadata = { why: 'y'.repeat(2_000) };
    expect(await store.upsert(ending, { expectedRevision: 1 })).toBe(2);
  });

  it('lists newest status first with pagination and filters, per tenant and owner', async () => {
    const store = fresh();
    for (let i = 0; i < 7; i++) {
      const r = record(`task-${i}`, i % 2 === 0 ? 'TASK_STATE_WORKING' : 'TASK_STATE_COMPLETED');
      r.task.status.timestamp = new Date(10_000 + i * 1_000).toISOString();
      r.task.contextId = i < 4 ? 'ctx-a' : 'ctx-b';
      await store.upsert(r, { expectedRevision: 0 });
    }
    await store.upsert({ ...record('bob-task'), owner: 'bob' }, { expectedRevision: 0 });
    const ids: string[] = [];
    let token: string | undefined;
    do {
      const page = await store.list({ tenant: 't1', owner: 'alice', pageSize: 3, ...(token ? { pageToken: token } : {}) });
      expect(page?.totalSize).toBe(7);
      ids.push(...(page?.records.map((r) => r.task.id) ?? []));
      token = page?.nextPageToken || undefined;
    } while (token);
    expect(ids).toEqual(['task-6', 'task-5', 'task-4', 'task-3', 'task-2', 'task-1', 'task-0']);
    const ctx = await store.list({ tenant: 't1', owner: 'alice', pageSize: 10, contextId: 'ctx-b', status: 'TASK_STATE_WORKING' });
    expect(ctx?.records.map((r) => r.task.id)).toEqual(['task-6', 'task-4']);
    const after = await store.list({ tenant: 't1', owner: 'alice', pageSize: 10, statusTimestampAfter: 14_000 });
    expect(after?.records.map((r) => r.task.id)).toEqual(['task-6', 'task-5']);
    expect(await store.list({ tenant: 't1', owner: 'alice', pageSize: 10, pageToken: 'garbage' })).toBeUndefined();
    expect((await store.list({ tenant: 't1', owner: 'bob', pageSize: 10 }))?.records.map((r) => r.task.id)).toEqual(['bob-task']);
    expect((await store.list({ tenant: 't2', owner: 'alice', pageSize: 10 }))?.totalSize).toBe(0);
  });

  it('deletes a task with its push configs and list entry', async () => {
    const store = fresh();
    const key = { tenant: 't1', taskId: 'd' };
    await store.upsert(record('d'), { expectedRevision: 0 });
    await store.putPushConfig(key, { id: 'p1', taskId: 'd', url: 'https://example.com/hook' } as never);
    expect(await store.delete(key)).toBe(true);
    expect(await store.delete(key)).toBe(false);
    expect(await store.get(key)).toBeUndefined();
    expect(await store.listPushConfigs(key)).toEqual([]);
    expect((await store.list({ tenant: 't1', owner: 'alice', pageSize: 10 }))?.totalSize).toBe(0);
    // A deleted task can be created again from revision 0.
    expect(await store.upsert(record('d'), { expectedRevision: 0 })).toBe(1);
  });

  it("retention: a task's push configs take its terminal TTL once it ends, and expire with it (docs/identity.md)", async () => {
    const store = fresh({ ttlMs: 5_000, liveTtlMs: 60_000 });
    const key = { tenant: 't1', taskId: 'r' };
    await store.upsert(record('r'), { expectedRevision: 0 });
    await store.putPushConfig(key, { id: 'p1', taskId: 'r', url: 'https://example.com/hook', token: 'secret' } as never);
    expect(Number(await client.sendCommand(['PTTL', store.keys.push('t1', 'r')]))).toBeGreaterThan(50_000);
    await store.upsert(record('r', 'TASK_STATE_COMPLETED'), { expectedRevision: 1 });
    const ttl = Number(await client.sendCommand(['PTTL', store.keys.push('t1', 'r')]));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5_000);
  });

  it('keeps push configs of stored tasks only, replaces by id, and caps them per task', async () => {
    const store = fresh({ maxPushConfigsPerTask: 2 });
    const key = { tenant: 't1', taskId: 'p' };
    const config = (id: string, url: string) => ({ id, taskId: 'p', url }) as never;
    await store.putPushConfig(key, config('c1', 'https://a.example'));
    expect(await store.listPushConfigs(key)).toEqual([]);
    await store.upsert(record('p'), { expectedRevision: 0 });
    await store.putPushConfig(key, config('c1', 'https://a.example'));
    await store.putPushConfig(key, config('c1', 'https://b.example'));
    await store.putPushConfig(key, config('c2', 'https://c.example'));
    expect((await store.listPushConfigs(key)).map((c: { url: string }) => c.url).sort()).toEqual([
      'https://b.example',
      'https://c.example',
    ]);
    await expect(store.putPushConfig(key, config('c3', 'https://d.example'))).rejects.toMatchObject({ reason: 'RATE_LIMITED' });
    expect(await store.deletePushConfig(key, 'c1')).toBe(true);
    expect(await store.deletePushConfig(key, 'c1')).toBe(false);
  });

  it('claims a send key once across replicas, expires it, and releases it only for its task', async () => {
    const a = fresh({ idempotencyTtlMs: 200 });
    const b = createRedisTaskStore({ client: other, keyPrefix: a.keys.prefix, idempotencyTtlMs: 200 });
    const key = { tenant: 't1', owner: 'alice', messageId: 'm1', fingerprint: 'f1' };
    const claims = await Promise.all([a.claimSendKey(key, 'task-a'), b.claimSendKey(key, 'task-b')]);
    expect(claims.filter((c) => c === undefined)).toHaveLength(1);
    const winner = claims[0] === undefined ? 'task-a' : 'task-b';
    expect(claims).toContain(winner);
    await b.releaseSendKey(key, 'someone-else');
    expect(await a.claimSendKey(key, 'task-c')).toBe(winner);
    await a.releaseSendKey(key, winner);
    expect(await a.claimSendKey(key, 'task-d')).toBeUndefined();
    await new Promise((r) => setTimeout(r, 300));
    expect(await b.claimSendKey(key, 'task-e')).toBeUndefined();
    // Another owner's identical message id is another key.
    expect(await a.claimSendKey({ ...key, owner: 'bob', messageId: 'm9' }, 'x')).toBeUndefined();
    // The same messageId with another message (another fingerprint) is another key, on every replica.
    expect(await a.claimSendKey({ ...key, messageId: 'm9', fingerprint: 'f2' }, 'z')).toBeUndefined();
    expect(await b.claimSendKey({ ...key, messageId: 'm9', fingerprint: 'f2' }, 'w')).toBe('z');
    expect(await a.claimSendKey({ ...key, messageId: 'm9' }, 'y')).toBeUndefined();
  });

  it('rejects unsafe key prefixes and bad options', () => {
    expect(() => createRedisTaskStore({ client, keyPrefix: '' })).toThrow(RangeError);
    expect(() => createRedisTaskStore({ client, keyPrefix: 'a*' })).toThrow(RangeError);
    expect(() => createRedisTaskStore({ client, keyPrefix: 'ok:', maxTasks: 0 })).toThrow(RangeError);
  });
});
