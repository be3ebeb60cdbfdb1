import { Governor, readTaskContext, TaskPolicyEngine } from '@a2aplane/a2a-governance';
import { createA2AServer, createAgentCard, createTaskUpdater } from '@a2aplane/a2a-server-express';
import { PolicyViolationError, ServiceUnavailableError } from '@a2aplane/a2a-types';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisConcurrencySlots, createRedisRateLimiter } from '../src/index.js';
import { cleanKeys, connectTestRedis, type TestRedisClient, testKeyPrefix } from './redis.js';

const SUITE = 'a2a-redis rate limiter and concurrency slots';
let admin: TestRedisClient;
const clients: TestRedisClient[] = [];
const prefix = testKeyPrefix('limits');
const closers: Array<() => void> = [];

beforeAll(async () => {
  admin = await connectTestRedis(SUITE);
});

afterAll(async () => {
  for (const close of closers) close();
  await cleanKeys(admin, prefix);
  for (const client of clients) await client.destroy();
  await admin?.destroy();
});

async function client(): Promise<TestRedisClient> {
  const connected = await connectTestRedis(SUITE);
  clients.push(connected);
  return connected;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const card = () =>
  createAgentCard({
    baseUrl: 'http://127.0.0.1',
    name: 'limited agent',
    description: 'answers',
    skills: [{ id: 's', name: 's', description: 's', tags: [] }],
    capabilities: {},
  });

async function deadClient() {
  const dead = createClient({ url: 'redis://127.0.0.1:1', socket: { reconnectStrategy: false, connectTimeout: 200 } });
  dead.on('error', () => undefined);
  await dead.connect().catch(() => undefined);
  return dead;
}

// 2,000 calls at once queue behind each other on a loaded CI machine: these tests are about the caps,
// so the per-command deadline (default 2 s, tested elsewhere) is lifted out of their way.
const UNDER_LOAD_MS = 60_000;

describe('createRedisRateLimiter', () => {
  it('replicas share one bucket per key: capacity 3 across two limiters, then a refusal with retryAfterSeconds', async () => {
    const options = { keyPrefix: `${prefix}a:`, capacity: 3, refillPerSecond: 0.5 };
    const one = createRedisRateLimiter({ client: await client(), ...options });
    const two = createRedisRateLimiter({ client: await client(), ...options });
    const verdicts = [await one.take('k'), await two.take('k'), await one.take('k'), await two.take('k')];
    expect(verdicts.slice(0, 3)).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
    expect(verdicts[3]).toEqual({ ok: false, retryAfterSeconds: 2 });
    expect(await one.take('another key')).toEqual({ ok: true });
  });

  it('2,000 concurrent takes on 3 replicas admit exactly the capacity', async () => {
    const options = { keyPrefix: `${prefix}b:`, capacity: 50, refillPerSecond: 0.001, commandTimeoutMs: UNDER_LOAD_MS };
    const limiters = [createRedisRateLimiter({ client: await client(), ...options })];
    limiters.push(createRedisRateLimiter({ client: await client(), ...options }));
    limiters.push(createRedisRateLimiter({ client: await client(), ...options }));
    const verdicts = await Promise.all(Array.from({ length: 2000 }, (_, i) => limiters[i % 3]!.take('shared')));
    expect(verdicts.filter((v) => v.ok)).toHaveLength(50);
  });

  it('refills over time on Redis clock', async () => {
    // One token per 2 s: the refusal right after the first take holds even on a loaded machine.
    const limiter = createRedisRateLimiter({ client: await client(), keyPrefix: `${prefix}c:`, capacity: 1, refillPerSecond: 0.5 });
    expect((await limiter.take('k')).ok).toBe(true);
    expect((await limiter.take('k')).ok).toBe(false);
    await sleep(2_100);
    expect((await limiter.take('k')).ok).toBe(true);
  });

  it('Redis unavailable: take rejects with ServiceUnavailableError, and the server answers 503 SERVICE_UNAVAILABLE', async () => {
    const dead = await deadClient();
    const limiter = createRedisRateLimiter({
      client: dead,
      keyPrefix: `${prefix}d:`,
      capacity: 1,
      refillPerSecond: 1,
      commandTimeoutMs: 300,
    });
    await expect(limiter.take('k')).rejects.toSatisfy((e: unknown) => ServiceUnavailableError.isInstance(e));
    const server = createA2AServer({ card: card(), executor: { async execute() {} }, rateLimiter: limiter });
    const response = await server.handle({ method: 'ListTasks', params: {}, version: '1.0' });
    expect(response).toMatchObject({ kind: 'error', error: { reason: 'SERVICE_UNAVAILABLE', httpStatus: 503 } });
    await server.close();
  });
});

describe('createRedisConcurrencySlots', () => {
  it('replicas share the slots of a (caller, skill): max 2 across two instances, release frees one', async () => {
    const one = createRedisConcurrencySlots({ client: await client(), keyPrefix: `${prefix}e:` });
    const two = createRedisConcurrencySlots({ client: await client(), keyPrefix: `${prefix}e:` });
    closers.push(one.close, two.close);
    const a = await one.acquire('caller', 'skill', 2);
    const b = await two.acquire('caller', 'skill', 2);
    expect(a.ok && b.ok).toBe(true);
    expect(await one.acquire('caller', 'skill', 2)).toEqual({ ok: false, active: 2 });
    expect((await one.acquire('caller', 'other skill', 2)).ok).toBe(true);
    if (b.ok) two.release(b.lease);
    // The release is sent on another replica's connection: wait (bounded) until this one sees it.
    let again = await one.acquire('caller', 'skill', 2);
    for (let attempt = 0; !again.ok && attempt < 250; attempt++) {
      await sleep(20);
      again = await one.acquire('caller', 'skill', 2);
    }
    expect(again.ok).toBe(true);
  });

  it('2,000 concurrent acquires on 3 replicas grant exactly max', async () => {
    const replicas: Array<ReturnType<typeof createRedisConcurrencySlots>> = [];
    for (let i = 0; i < 3; i++)
      replicas.push(createRedisConcurrencySlots({ client: await client(), keyPrefix: `${prefix}f:`, commandTimeoutMs: UNDER_LOAD_MS }));
    closers.push(...replicas.map((r) => r.close));
    const grants = await Promise.all(Array.from({ length: 2000 }, (_, i) => replicas[i % 3]!.acquire('c', 's', 16)));
    expect(grants.filter((g) => g.ok)).toHaveLength(16);
  });

  it("a crashed replica's slots expire with their lease; held ones are renewed", async () => {
    const crashed = createRedisConcurrencySlots({ client: await client(), keyPrefix: `${prefix}g:`, leaseMs: 150 });
    const live = createRedisConcurrencySlots({ client: await client(), keyPrefix: `${prefix}g:`, leaseMs: 150 });
    closers.push(live.close);
    expect((await live.acquire('c', 's', 2)).ok).toBe(true);
    expect((await crashed.acquire('c', 's', 2)).ok).toBe(true);
    crashed.close();
    expect((await live.acquire('c', 's', 2)).ok).toBe(false);
    await sleep(400);
    expect((await live.acquire('c', 's', 2)).ok).toBe(true); // the crashed one's slot came back
    expect(await live.acquire('c', 's', 2)).toEqual({ ok: false, active: 2 }); // the live one's was renewed
  });

  it('a Governor with TaskPolicyEngine on Redis slots: the default 16 per caller per skill holds across replicas', async () => {
    const policies: Governor[] = [];
    for (let i = 0; i < 2; i++) {
      const slots = createRedisConcurrencySlots({ client: await client(), keyPrefix: `${prefix}h:` });
      closers.push(slots.close);
      policies.push(new Governor({ selfAgentId: `r${i}`, policy: new TaskPolicyEngine({ slots }) }));
    }
    const outcomes = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => policies[i % 2]!.admit({ caller: 'c', skill: 's' })));
    const admitted = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    expect(admitted).toHaveLength(16);
    expect(outcomes.every((o) => o.status === 'fulfilled' || PolicyViolationError.isInstance(o.reason))).toBe(true);
    await Promise.all(admitted.map((task) => task.finish({})));
    await sleep(20);
    expect(await policies[0]!.admit({ caller: 'c', skill: 's' })).toBeDefined();
  });

  it('Redis unavailable: acquire rejects with ServiceUnavailableError, a governed SendMessage fails 503 and nothing crashes', async () => {
    const dead = await deadClient();
    const slots = createRedisConcurrencySlots({ client: dead, keyPrefix: `${prefix}i:`, commandTimeoutMs: 300 });
    await expect(slots.acquire('c', 's', 1)).rejects.toSatisfy((e: unknown) => ServiceUnavailableError.isInstance(e));
    const governor = new Governor({ selfAgentId: 'self', policy: new TaskPolicyEngine({ slots }) });
    let runs = 0;
    const server = createA2AServer({
      card: card(),
      executor: {
        async execute(context, events) {
          runs++;
          createTaskUpdater(context, events).complete();
        },
      },
      governance: { admit: (input) => governor.admit(input), readTaskContext },
    });
    const response = await server.handle({
      method: 'SendMessage',
      params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] } },
      version: '1.0',
    });
    expect(response).toMatchObject({ kind: 'error', error: { reason: 'SERVICE_UNAVAILABLE', httpStatus: 503 } });
    expect(runs).toBe(0);
    await server.close();
  });
});
