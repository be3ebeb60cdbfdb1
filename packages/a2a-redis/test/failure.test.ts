import { SlowConsumerError, type TaskRecord, type TaskSubscription } from '@a2aplane/a2a-server-express';
import type { StreamResponse } from '@a2aplane/a2a-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisTaskEventBus } from '../src/bus/redis-task-event-bus.js';
import { createRedisConnection, type RedisConnection } from '../src/connection.js';
import { RedisUnavailableError } from '../src/errors.js';
import { createRedisTaskStore } from '../src/store/redis-task-store.js';
import { cleanKeys, connectTestRedis, type RedisProxy, startRedisProxy, testKeyPrefix } from './redis.js';

const record = (taskId: string): TaskRecord => ({
  tenant: 't',
  owner: 'o',
  updatedAt: 1,
  task: { id: taskId, contextId: 'c', status: { state: 'TASK_STATE_WORKING' } },
});
const event = (n: number): StreamResponse =>
  ({ statusUpdate: { taskId: 'x', contextId: 'c', status: { state: 'TASK_STATE_WORKING' }, metadata: { n } } }) as StreamResponse;

async function eventually<T>(attempt: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

describe('Redis down and back (needs Redis; a proxy in front of it is cut)', () => {
  let direct: RedisConnection;
  let proxy: RedisProxy;
  let client: RedisConnection;
  const errors: Error[] = [];
  const prefix = testKeyPrefix('failure');
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown): void => {
    rejections.push(reason);
  };

  beforeAll(async () => {
    process.on('unhandledRejection', onRejection);
    direct = await connectTestRedis('a2a-redis failure tests');
    proxy = await startRedisProxy();
    client = createRedisConnection({ url: proxy.url, maxReconnectDelayMs: 100, onError: (e) => errors.push(e) });
    await client.connect();
  });
  afterAll(async () => {
    process.off('unhandledRejection', onRejection);
    client.destroy();
    await proxy.close();
    await cleanKeys(direct, prefix);
    await direct.quit();
  });

  it('store calls fail fast with 503 RedisUnavailableError while Redis is away, then work again; acknowledged writes survive', async () => {
    const store = createRedisTaskStore({ client, keyPrefix: prefix, commandTimeoutMs: 500 });
    const acknowledged: string[] = [];
    for (let i = 0; i < 20; i++) {
      await store.upsert(record(`ack-${i}`), { expectedRevision: 0 });
      acknowledged.push(`ack-${i}`);
    }
    await proxy.down();
    const results = await Promise.allSettled([
      store.get({ tenant: 't', taskId: 'ack-0' }),
      store.upsert(record('during'), { expectedRevision: 0 }),
      store.list({ tenant: 't', owner: 'o', pageSize: 5 }),
      store.claimSendKey({ tenant: 't', owner: 'o', messageId: 'm', fingerprint: 'f' }, 'x'),
    ]);
    for (const r of results) {
      expect(r.status).toBe('rejected');
      const reason = (r as PromiseRejectedResult).reason;
      expect(RedisUnavailableError.isInstance(reason)).toBe(true);
      expect(reason.httpStatus).toBe(503);
    }
    await proxy.up();
    const back = await eventually(() => store.get({ tenant: 't', taskId: 'ack-0' }));
    expect(back?.revision).toBe(1);
    for (const id of acknowledged) expect((await store.get({ tenant: 't', taskId: id }))?.revision).toBe(1);
    // The write refused during the outage was not applied: it can be made now from revision 0.
    expect(await store.upsert(record('during'), { expectedRevision: 0 })).toBe(1);
    expect(errors.length).toBeGreaterThan(0);
  });

  it('a stalled Redis (accepts, never answers) times out instead of hanging', async () => {
    const store = createRedisTaskStore({ client, keyPrefix: prefix, commandTimeoutMs: 300 });
    proxy.stall();
    const error = await store.get({ tenant: 't', taskId: 'ack-1' }).catch((e: unknown) => e);
    expect((error as RedisUnavailableError).metadata.cause).toBe('timeout');
    // The stalled connection may hold replies forever: cut it so the client reconnects.
    await proxy.down();
    await proxy.up();
    expect(await eventually(() => store.get({ tenant: 't', taskId: 'ack-1' }))).toBeDefined();
  });

  it('a live subscription survives a short outage without losing or repeating an event', async () => {
    const publisher = createRedisTaskEventBus({ client: direct, keyPrefix: prefix });
    const bus = createRedisTaskEventBus({ client, keyPrefix: prefix, subscriberGiveUpMs: 10_000 });
    const key = { tenant: 't', taskId: 'outage' };
    const sub = (await bus.subscribe(key)) as TaskSubscription;
    const seen: number[] = [];
    const reading = (async () => {
      for await (const r of sub) seen.push((r.event as unknown as { statusUpdate: { metadata: { n: number } } }).statusUpdate.metadata.n);
    })();
    for (let i = 1; i <= 5; i++) await publisher.publish(key, { event: event(i), final: false, revision: i });
    await eventually(async () => expect(seen.length).toBe(5));
    await proxy.down();
    // Published while the subscriber's replica cannot reach Redis.
    for (let i = 6; i <= 10; i++) await publisher.publish(key, { event: event(i), final: false, revision: i });
    await new Promise((r) => setTimeout(r, 300));
    await proxy.up();
    for (let i = 11; i <= 15; i++) await publisher.publish(key, { event: event(i), final: i === 15, revision: i });
    await reading;
    expect(seen).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    await bus.close();
    await publisher.close();
  });

  it('a subscription whose Redis stays away ends with RedisUnavailableError (the client resumes later)', async () => {
    const bus = createRedisTaskEventBus({ client, keyPrefix: prefix, subscriberGiveUpMs: 300 });
    const sub = (await eventually(() => bus.subscribe({ tenant: 't', taskId: 'gone' })))!;
    const reading = (async () => {
      for await (const _ of sub) {
        // none expected
      }
    })();
    await proxy.down();
    const error = await reading.catch((e: unknown) => e);
    expect(RedisUnavailableError.isInstance(error)).toBe(true);
    expect(SlowConsumerError.isInstance(error)).toBe(false);
    await proxy.up();
    await bus.close();
  });

  it('publish and cancel requests fail with 503 while Redis is away; nothing crashed the process', async () => {
    const bus = createRedisTaskEventBus({ client, keyPrefix: prefix, commandTimeoutMs: 300 });
    await proxy.down();
    await expect(bus.publish({ tenant: 't', taskId: 'p' }, { event: event(1), final: false, revision: 1 })).rejects.toMatchObject({
      httpStatus: 503,
    });
    await expect(bus.requestCancel({ tenant: 't', taskId: 'p' }, {})).rejects.toMatchObject({ reason: 'SERVICE_UNAVAILABLE' });
    await expect(bus.read({ tenant: 't', taskId: 'p' })).rejects.toMatchObject({ reason: 'SERVICE_UNAVAILABLE' });
    // A cancel handler registered during the outage must not throw (it takes effect when Redis is back).
    const off = bus.onCancel({ tenant: 't', taskId: 'p' }, () => {});
    await proxy.up();
    await eventually(() => bus.publish({ tenant: 't', taskId: 'p' }, { event: event(2), final: false, revision: 2 }));
    off();
    await bus.close();
    expect(rejections).toEqual([]);
  });
});
