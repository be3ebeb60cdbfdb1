import type { TaskEventRecord, TaskEventBus, TaskSubscription } from '@a2aplane/a2a-server-express';
import type { StreamResponse } from '@a2aplane/a2a-types';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedisTaskEventBus, type RedisTaskEventBus } from '../src/bus/redis-task-event-bus.js';
import { compareStreamIds } from '../src/bus/stream-id.js';
import { cleanKeys, connectTestRedis, testKeyPrefix } from './redis.js';

type Client = Awaited<ReturnType<typeof connectTestRedis>>;

const key = { tenant: 't1', taskId: 'task-1' };
const status = (n: number): StreamResponse =>
  ({ statusUpdate: { taskId: 'task-1', contextId: 'c', status: { state: 'TASK_STATE_WORKING' }, metadata: { n } } }) as StreamResponse;
const n = (r: TaskEventRecord): number => (r.event as unknown as { statusUpdate: { metadata: { n: number } } }).statusUpdate.metadata.n;

/** Reads `count` records (or until the subscription ends). */
async function take(sub: TaskSubscription, count: number): Promise<TaskEventRecord[]> {
  const out: TaskEventRecord[] = [];
  if (count === 0) return out;
  for await (const r of sub) {
    out.push(r);
    if (out.length >= count) break;
  }
  return out;
}

describe('createRedisTaskEventBus (needs Redis)', () => {
  let clientA: Client;
  let clientB: Client;
  /** Replica B's connections carry this name (duplicates inherit it), so CLIENT LIST finds them among parallel runs. */
  const readerName = `a2a-test-bus-${process.pid}-${Date.now()}`;
  const prefixes: string[] = [];
  const buses: TaskEventBus[] = [];
  /** Two replicas: two buses on two connections sharing one prefix. */
  const pair = (options: Partial<Parameters<typeof createRedisTaskEventBus>[0]> = {}): [RedisTaskEventBus, RedisTaskEventBus] => {
    const keyPrefix = testKeyPrefix('bus');
    prefixes.push(keyPrefix);
    const a = createRedisTaskEventBus({ client: clientA, keyPrefix, ...options });
    const b = createRedisTaskEventBus({ client: clientB, keyPrefix, ...options });
    buses.push(a, b);
    return [a, b];
  };

  beforeAll(async () => {
    clientA = await connectTestRedis('a2a-redis event bus tests');
    clientB = await connectTestRedis('a2a-redis event bus tests', { name: readerName });
  });
  afterEach(async () => {
    for (const bus of buses.splice(0)) await bus.close();
  });
  afterAll(async () => {
    for (const p of prefixes) await cleanKeys(clientA, p);
    await clientA.quit();
    await clientB.quit();
  });

  it('gives every event a stream id, increasing per task, and reads the log after an id', async () => {
    const [bus] = pair();
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) ids.push(await bus.publish(key, { event: status(i), final: false, revision: i }));
    for (const id of ids) expect(id).toMatch(/^\d+-\d+$/);
    for (let i = 1; i < ids.length; i++) expect(compareStreamIds(ids[i - 1] as string, ids[i] as string)).toBeLessThan(0);
    const log = await bus.read(key, ids[1]);
    expect(log?.events.map(n)).toEqual([3, 4, 5]);
    expect(log?.events.map((e) => e.revision)).toEqual([3, 4, 5]);
    expect(log?.lastId).toBe(ids[4]);
    expect(log?.gap).toBe(false);
    expect((await bus.read(key))?.events).toHaveLength(5);
    expect(await bus.read(key, 'not-an-id')).toBeUndefined();
    expect(await bus.read(key, '1-2-3')).toBeUndefined();
    expect(await bus.read({ tenant: 't1', taskId: 'none' })).toEqual({ events: [], lastId: undefined, gap: false });
    expect((await bus.read({ tenant: 't1', taskId: 'none' }, ids[0]))?.gap).toBe(true);
  });

  it('delivers events published on replica A live to a subscriber on replica B, ending after the final one', async () => {
    const [a, b] = pair();
    const sub = await b.subscribe(key);
    expect(sub).toBeDefined();
    const reading = take(sub as TaskSubscription, 100);
    for (let i = 1; i <= 20; i++) await a.publish(key, { event: status(i), final: i === 20, revision: i });
    const got = await reading;
    expect(got.map(n)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(got.at(-1)?.final).toBe(true);
  });

  it('resumes on another replica after any id: every later event once, in order, replay then live', async () => {
    const [a, b] = pair();
    const ids: string[] = [];
    for (let i = 1; i <= 10; i++) ids.push(await a.publish(key, { event: status(i), final: false, revision: i }));
    for (const cut of [0, 3, 9]) {
      const sub = (await b.subscribe(key, { afterId: ids[cut] })) as TaskSubscription;
      expect(sub.startId).toBe(ids[cut]);
      expect(sub.gap).toBe(false);
      const replayed = await take(sub, 9 - cut);
      expect(replayed.map(n)).toEqual(Array.from({ length: 9 - cut }, (_, i) => cut + 2 + i));
      sub.close();
    }
    // Live continues right after the replay while A keeps publishing concurrently.
    const sub = (await b.subscribe(key, { afterId: ids[4] })) as TaskSubscription;
    const reading = take(sub, 100);
    for (let i = 11; i <= 30; i++) await a.publish(key, { event: status(i), final: i === 30, revision: i });
    expect((await reading).map(n)).toEqual(Array.from({ length: 25 }, (_, i) => i + 6));
  });

  it('a subscription without afterId is live only, from the moment it resolves', async () => {
    const [a, b] = pair();
    await a.publish(key, { event: status(1), final: false, revision: 1 });
    const sub = (await b.subscribe(key)) as TaskSubscription;
    expect(sub.startId).toMatch(/^\d+-\d+$/);
    const reading = take(sub, 2);
    await a.publish(key, { event: status(2), final: false, revision: 2 });
    await a.publish(key, { event: status(3), final: true, revision: 3 });
    expect((await reading).map(n)).toEqual([2, 3]);
  });

  it('a replay ending in a final event ends the subscription; one passing a final event goes on', async () => {
    const [a, b] = pair();
    const first = await a.publish(key, { event: status(1), final: false, revision: 1 });
    await a.publish(key, { event: status(2), final: true, revision: 2 });
    const ended = (await b.subscribe(key, { afterId: first })) as TaskSubscription;
    expect((await take(ended, 10)).map(n)).toEqual([2]);
    await a.publish(key, { event: status(3), final: false, revision: 3 });
    const going = (await b.subscribe(key, { afterId: first })) as TaskSubscription;
    const reading = take(going, 10);
    await a.publish(key, { event: status(4), final: true, revision: 4 });
    expect((await reading).map(n)).toEqual([2, 3, 4]);
  });

  it('many subscribers on one replica share one blocking reader, each gets its own exact stream', async () => {
    const [a, b] = pair();
    const keys = Array.from({ length: 25 }, (_, i) => ({ tenant: 't1', taskId: `multi-${i}` }));
    const subs = await Promise.all(keys.map((k) => b.subscribe(k)));
    const readings = subs.map((s) => take(s as TaskSubscription, 100));
    await Promise.all(
      keys.map(async (k) => {
        for (let i = 1; i <= 5; i++) await a.publish(k, { event: status(i), final: i === 5, revision: i });
      }),
    );
    for (const got of await Promise.all(readings)) expect(got.map(n)).toEqual([1, 2, 3, 4, 5]);
    const clients = String(await clientA.sendCommand(['CLIENT', 'LIST', 'TYPE', 'normal']));
    // Replica B followed 25 tasks over one XREAD connection (not one per subscriber).
    expect(clients.split('\n').filter((line) => line.includes(`name=${readerName} `) && line.includes('cmd=xread')).length).toBe(1);
  });

  it('ends a subscription on close(), on abort and on bus close, without an error', async () => {
    const [a, b] = pair();
    const s1 = (await b.subscribe(key)) as TaskSubscription;
    const r1 = take(s1, 10);
    s1.close();
    expect(await r1).toEqual([]);
    const controller = new AbortController();
    const s2 = (await b.subscribe(key, { signal: controller.signal })) as TaskSubscription;
    const r2 = take(s2, 10);
    controller.abort();
    expect(await r2).toEqual([]);
    const s3 = (await b.subscribe(key)) as TaskSubscription;
    const r3 = take(s3, 10);
    await b.close();
    expect(await r3).toEqual([]);
    expect(await a.publish(key, { event: status(1), final: false, revision: 1 })).toMatch(/-/);
  });

  it('trims logs to maxEventsPerTask and reports a gap to a resume from before the trim', async () => {
    const [a, b] = pair({ maxEventsPerTask: 3 });
    const ids: string[] = [];
    for (let i = 1; i <= 6; i++) ids.push(await a.publish(key, { event: status(i), final: false, revision: i }));
    const log = await b.read(key, ids[0]);
    expect(log?.gap).toBe(true);
    expect(log?.events.map(n)).toEqual([4, 5, 6]);
    expect((await b.read(key, ids[2]))?.gap).toBe(false);
    const sub = (await b.subscribe(key, { afterId: ids[1] })) as TaskSubscription;
    expect(sub.gap).toBe(true);
    sub.close();
  });

  it('a final event sets the retention TTL on the log; a live log keeps the live TTL', async () => {
    const [a] = pair({ retentionMs: 5_000, liveTtlMs: 60_000 });
    await a.publish(key, { event: status(1), final: false, revision: 1 });
    const live = Number(await clientA.sendCommand(['PTTL', a.keys.events('t1', 'task-1')]));
    expect(live).toBeGreaterThan(5_000);
    await a.publish(key, { event: status(2), final: true, revision: 2 });
    const ended = Number(await clientA.sendCommand(['PTTL', a.keys.events('t1', 'task-1')]));
    expect(ended).toBeGreaterThan(0);
    expect(ended).toBeLessThanOrEqual(5_000);
  });

  it('cancel reaches the replica running the task; false when nobody runs it', async () => {
    const [a, b] = pair();
    const k = { tenant: 't1', taskId: 'cancel-me' };
    expect(await b.requestCancel(k, {})).toBe(false);
    const got: unknown[] = [];
    const off = a.onCancel(k, (request) => got.push(request));
    let delivered = false;
    for (let i = 0; i < 100 && !delivered; i++) {
      delivered = await b.requestCancel(k, { metadata: { why: 'user' } });
      if (!delivered) await new Promise((r) => setTimeout(r, 10));
    }
    expect(delivered).toBe(true);
    for (let i = 0; i < 100 && got.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(got[0]).toEqual({ metadata: { why: 'user' } });
    off();
    let stillThere = true;
    for (let i = 0; i < 100 && stillThere; i++) {
      stillThere = await b.requestCancel(k, {});
      if (stillThere) await new Promise((r) => setTimeout(r, 10));
    }
    expect(stillThere).toBe(false);
    // Another task's handler does not see it.
    const others: unknown[] = [];
    a.onCancel({ tenant: 't1', taskId: 'other' }, (r) => others.push(r));
    await new Promise((r) => setTimeout(r, 50));
    expect(await b.requestCancel(k, {})).toBe(false);
    expect(others).toEqual([]);
  });
});
