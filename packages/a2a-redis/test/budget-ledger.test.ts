import { type BudgetTicket, Governor } from '@a2aplane/a2a-governance';
import { BudgetExceededError, ServiceUnavailableError } from '@a2aplane/a2a-types';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisBudgetLedger, type RedisBudgetLedger, type RedisBudgetLedgerOptions } from '../src/index.js';
import { cleanKeys, connectTestRedis, REDIS_URL, startRedisProxy, type TestRedisClient, testKeyPrefix } from './redis.js';

const SUITE = 'a2a-redis budget ledger';
let admin: TestRedisClient;
const clients: TestRedisClient[] = [];
const ledgers: RedisBudgetLedger[] = [];
const prefixes: string[] = [];

beforeAll(async () => {
  admin = await connectTestRedis(SUITE);
});

afterAll(async () => {
  for (const ledger of ledgers) ledger.close();
  for (const prefix of prefixes) await cleanKeys(admin, prefix);
  for (const client of clients) await client.destroy();
  await admin?.destroy();
});

/** A ledger on a client of its own (a "replica"), under `prefix`. */
async function replica(prefix: string, options: Omit<RedisBudgetLedgerOptions, 'client' | 'keyPrefix'>): Promise<RedisBudgetLedger> {
  const client = await connectTestRedis(SUITE);
  clients.push(client);
  const ledger = createRedisBudgetLedger({ client, keyPrefix: prefix, ...options });
  ledgers.push(ledger);
  return ledger;
}

function freshPrefix(): string {
  const prefix = testKeyPrefix('budget');
  prefixes.push(prefix);
  return prefix;
}

const isBudget = (limit: string) => (error: unknown) => BudgetExceededError.isInstance(error) && error.metadata.limit === limit;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('createRedisBudgetLedger: the in-memory ledger semantics, in Redis', () => {
  it('sheds past maxTasksPerMinute with BudgetExceededError (limit tasks, retryAfterSeconds)', async () => {
    const ledger = await replica(freshPrefix(), { maxTasksPerMinute: 3 });
    for (let i = 0; i < 3; i++) await ledger.acquire({});
    const refusal = await ledger.acquire({}).catch((error: unknown) => error);
    expect(isBudget('tasks')(refusal)).toBe(true);
    expect((refusal as BudgetExceededError).metadata).toMatchObject({ observed: '3', cap: '3' });
    expect((refusal as BudgetExceededError).retryAfterSeconds).toBeGreaterThanOrEqual(59);
  });

  it('sums USD in integer nano-dollars: 200 x $0.005 fit a $1.00 cap exactly, the 201st is refused', async () => {
    const ledger = await replica(freshPrefix(), { maxUsdPerMinute: 1 });
    const tickets: BudgetTicket[] = [];
    for (let i = 0; i < 200; i++) tickets.push(await ledger.acquire({ estimatedUsd: 0.005 }));
    await expect(ledger.acquire({ estimatedUsd: 0.005 })).rejects.toSatisfy(isBudget('usd'));
    for (const ticket of tickets) await ledger.meter(ticket, { usd: 0.005 });
    const snapshot = await ledger.refresh();
    expect(snapshot.window).toEqual({ usd: 1, tokens: 0, tasks: 200 });
    expect(snapshot).toMatchObject({ inFlight: 0, reserved: { usd: 0, tokens: 0 }, totals: { usd: 1, tasks: 200 } });
    expect(ledger.snapshot().window).toEqual({ usd: 1, tokens: 0, tasks: 200 });
  });

  it('meters a ticket once; metering releases its reservation and makes room', async () => {
    const ledger = await replica(freshPrefix(), { maxTokensPerMinute: 100 });
    const ticket = await ledger.acquire({ estimatedTokens: 80 });
    await expect(ledger.acquire({ estimatedTokens: 30 })).rejects.toSatisfy(isBudget('tokens'));
    await ledger.meter(ticket, { tokens: 50 });
    await ledger.meter(ticket, { tokens: 50 }); // ignored
    expect((await ledger.refresh()).window?.tokens).toBe(50);
    const second = await ledger.acquire({ estimatedTokens: 30 });
    await ledger.meter(second, { tokens: 10 });
    expect(await ledger.refresh()).toMatchObject({ window: { tokens: 60 }, reserved: { tokens: 0 } });
  });

  it('reserveMore grows a live reservation while the cap allows, refuses past it and after meter', async () => {
    const ledger = await replica(freshPrefix(), { maxUsdPerMinute: 0.1 });
    const ticket = await ledger.acquire({ estimatedUsd: 0.02 });
    expect(await ledger.reserveMore!(ticket, { usd: 0.05 })).toBe(true);
    expect((await ledger.refresh()).reserved.usd).toBe(0.07);
    expect(await ledger.reserveMore!(ticket, { usd: 0.04 })).toBe(false);
    await ledger.meter(ticket, { usd: 0.07 });
    expect(await ledger.reserveMore!(ticket, { usd: 0.01 })).toBe(false);
  });

  it('retryAfterSeconds says when expiry of metered spend makes room, and the request then fits', async () => {
    const ledger = await replica(freshPrefix(), { maxUsdPerMinute: 1, windowMs: 4000 });
    await ledger.meter(await ledger.acquire({ estimatedUsd: 0.3 }), { usd: 0.3 });
    await sleep(1500);
    await ledger.meter(await ledger.acquire({ estimatedUsd: 0.4 }), { usd: 0.4 });
    // 0.7 spent: 0.5 more fits once the first 0.3 leaves the window (about 2.5 s from now), not after the whole 4 s window.
    const refusal = await ledger.acquire({ estimatedUsd: 0.5 }).catch((error: unknown) => error);
    expect(isBudget('usd')(refusal)).toBe(true);
    expect((refusal as BudgetExceededError).retryAfterSeconds).toBe(3);
    await sleep(2700);
    await expect(ledger.acquire({ estimatedUsd: 0.5 })).resolves.toMatchObject({ id: expect.any(Number) });
  });

  it('an estimate above the cap is refused outright (retryAfterSeconds 60, never fits)', async () => {
    const ledger = await replica(freshPrefix(), { maxUsdPerMinute: 0.1, overflow: { kind: 'queue', maxQueueDepth: 5 } });
    const refusal = await ledger.acquire({ estimatedUsd: 0.5 }).catch((error: unknown) => error);
    expect(isBudget('usd')(refusal)).toBe(true);
    expect((refusal as BudgetExceededError).retryAfterSeconds).toBe(60);
  });

  it('the window rolls: tasks admitted again once the earlier ones leave it', async () => {
    const ledger = await replica(freshPrefix(), { maxTasksPerMinute: 2, windowMs: 300 });
    await ledger.acquire({});
    await ledger.acquire({});
    await expect(ledger.acquire({})).rejects.toSatisfy(isBudget('tasks'));
    await sleep(350);
    await expect(ledger.acquire({})).resolves.toMatchObject({ id: expect.any(Number) });
  });

  it('queue overflow: a refused request waits for room, a full queue is refused with limit queue_full', async () => {
    const ledger = await replica(freshPrefix(), { maxTasksPerMinute: 1, windowMs: 300, overflow: { kind: 'queue', maxQueueDepth: 1 } });
    await ledger.acquire({});
    const waiting = ledger.acquire({});
    await expect(ledger.acquire({})).rejects.toSatisfy(isBudget('queue_full'));
    await expect(waiting).resolves.toMatchObject({ id: expect.any(Number) });
    const controller = new AbortController();
    const aborted = ledger.acquire({}, controller.signal);
    controller.abort(new Error('caller left'));
    await expect(aborted).rejects.toThrow('caller left');
  });
});

// 2,000 calls at once queue behind each other on a loaded CI machine: these tests are about the caps,
// so the per-command deadline (default 2 s, tested elsewhere) is lifted out of their way.
const UNDER_LOAD_MS = 60_000;

describe('createRedisBudgetLedger: replicas', () => {
  it('3 replicas under 2,000 concurrent acquires never exceed the cap in total (worst overshoot 0)', async () => {
    const prefix = freshPrefix();
    const replicas = await Promise.all(
      [0, 1, 2].map(() => replica(prefix, { maxUsdPerMinute: 1, maxTasksPerMinute: 150, commandTimeoutMs: UNDER_LOAD_MS })),
    );
    const outcomes = await Promise.allSettled(
      Array.from({ length: 2000 }, (_, i) =>
        replicas[i % 3]!.acquire({ estimatedUsd: 0.01 }).then((ticket) => ({ ticket, replica: i % 3 })),
      ),
    );
    const granted = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
    expect(granted).toHaveLength(100);
    expect(refused.every((outcome) => BudgetExceededError.isInstance(outcome.reason))).toBe(true);
    // Spend exactly the estimate: the cap is met, never passed.
    await Promise.all(granted.map(({ ticket, replica: index }) => replicas[index]!.meter(ticket, { usd: 0.01 })));
    const snapshot = await replicas[0]!.refresh();
    expect(snapshot.window?.usd).toBe(1);
    expect(Math.max(0, snapshot.window!.usd - 1)).toBe(0);
    expect(snapshot.inFlight).toBe(0);
  });

  it('a tasks cap holds across replicas under 2,000 concurrent acquires: exactly the cap is granted', async () => {
    const prefix = freshPrefix();
    const replicas = await Promise.all([0, 1, 2].map(() => replica(prefix, { maxTasksPerMinute: 500, commandTimeoutMs: UNDER_LOAD_MS })));
    const outcomes = await Promise.allSettled(Array.from({ length: 2000 }, (_, i) => replicas[i % 3]!.acquire({})));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(500);
    expect((await replicas[1]!.refresh()).window?.tasks).toBe(500);
  });

  it("a crashed replica's reservations expire with their lease; a live replica renews its own", async () => {
    const prefix = freshPrefix();
    const crashed = await replica(prefix, { maxUsdPerMinute: 1, leaseMs: 150 });
    const live = await replica(prefix, { maxUsdPerMinute: 1, leaseMs: 150 });
    const held = await live.acquire({ estimatedUsd: 0.5 });
    await crashed.acquire({ estimatedUsd: 0.5 });
    crashed.close(); // stops renewing, as a dead process would
    await expect(live.acquire({ estimatedUsd: 0.5 })).rejects.toSatisfy(isBudget('usd'));
    await sleep(400);
    // The crashed replica's 0.5 came back; the live one's ticket is still reserved (renewed).
    expect((await live.refresh()).reserved.usd).toBe(0.5);
    const again = await live.acquire({ estimatedUsd: 0.5 });
    await live.meter(held, { usd: 0.5 });
    await live.meter(again, { usd: 0.5 });
    expect((await live.refresh()).window?.usd).toBe(1);
  });

  it('spend metered after a lease expired is still recorded; every ledger key carries a TTL', async () => {
    const prefix = freshPrefix();
    const ledger = await replica(prefix, { maxUsdPerMinute: 1, leaseMs: 60 });
    const ticket = await ledger.acquire({ estimatedUsd: 0.2 });
    await ledger.meter(await ledger.acquire({ estimatedUsd: 0.1 }), { usd: 0.1 });
    ledger.close(); // no renewals: the first ticket's lease runs out
    await sleep(200);
    expect((await ledger.refresh()).reserved.usd).toBe(0);
    await ledger.meter(ticket, { usd: 0.3 });
    expect((await ledger.refresh()).window?.usd).toBe(0.4);
    const keys: string[] = [];
    for await (const batch of admin.scanIterator({ MATCH: `${prefix}*`, COUNT: 100 })) keys.push(...batch);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(await admin.pTTL(key)).toBeGreaterThan(0);
  });

  it('a Governor on the Redis ledger (async path, no tryAcquire) admits and meters across replicas', async () => {
    const prefix = freshPrefix();
    const a = new Governor({ selfAgentId: 'a', budget: await replica(prefix, { maxTasksPerMinute: 2 }) });
    const b = new Governor({ selfAgentId: 'b', budget: await replica(prefix, { maxTasksPerMinute: 2 }) });
    const first = await a.admit({ caller: 'c', skill: 's' });
    const second = await b.admit({ caller: 'c', skill: 's' });
    await expect(a.admit({ caller: 'c', skill: 's' })).rejects.toSatisfy(isBudget('tasks'));
    await first.finish({});
    await second.finish({});
  });

  it('a Governor task past its reservation is cut when the shared budget has no room (async reserveMore)', async () => {
    const prefix = freshPrefix();
    const budget = await replica(prefix, { maxUsdPerMinute: 0.05 });
    const other = await replica(prefix, { maxUsdPerMinute: 0.05 });
    const governor = new Governor({ selfAgentId: 'self', budget, estimateCost: () => 0.02 });
    const task = await governor.admit({ caller: 'c', skill: 's' });
    await other.acquire({ estimatedUsd: 0.03 }); // another replica takes the rest of the window
    const cut = await task.meterUsd(0.03);
    expect(BudgetExceededError.isInstance(cut)).toBe(true);
    await task.finish({});
  });
});

describe('createRedisBudgetLedger: Redis unavailable', () => {
  it('a client pointed at a closed port: every call rejects with ServiceUnavailableError (503), fast', async () => {
    const client = createClient({ url: 'redis://127.0.0.1:1', socket: { reconnectStrategy: false, connectTimeout: 200 } });
    client.on('error', () => undefined);
    await client.connect().catch(() => undefined);
    const ledger = createRedisBudgetLedger({ client, keyPrefix: freshPrefix(), maxTasksPerMinute: 5, commandTimeoutMs: 300 });
    const started = Date.now();
    const error = await ledger.acquire({}).catch((e: unknown) => e);
    expect(ServiceUnavailableError.isInstance(error)).toBe(true);
    expect((error as ServiceUnavailableError).httpStatus).toBe(503);
    expect((error as ServiceUnavailableError).metadata.backend).toBe('redis');
    expect((error as ServiceUnavailableError).message).not.toContain('127.0.0.1');
    expect(Date.now() - started).toBeLessThan(2000);
    ledger.close();
  });

  it('Redis going away mid-service: calls fail with 503 within the command timeout, then work again when it is back', async () => {
    const proxy = await startRedisProxy();
    const client = createClient({ url: proxy.url, socket: { connectTimeout: 300, reconnectStrategy: () => 50 } });
    await client.connect();
    const errors: unknown[] = [];
    const ledger = createRedisBudgetLedger({
      client,
      keyPrefix: freshPrefix(),
      maxTasksPerMinute: 100,
      commandTimeoutMs: 400,
      onError: (e) => errors.push(e),
    });
    const ticket = await ledger.acquire({});
    await proxy.down();
    const started = Date.now();
    await expect(ledger.acquire({})).rejects.toSatisfy((e: unknown) => ServiceUnavailableError.isInstance(e));
    await expect(ledger.meter(ticket, { usd: 0 })).rejects.toSatisfy((e: unknown) => ServiceUnavailableError.isInstance(e));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(errors.length).toBeGreaterThan(0); // the client's error events went to onError, not to an unhandled 'error'
    await proxy.up();
    let back: BudgetTicket | undefined;
    for (let attempt = 0; attempt < 40 && back === undefined; attempt++) {
      back = await ledger.acquire({}).catch(() => undefined);
      if (back === undefined) await sleep(100);
    }
    expect(back).toBeDefined();
    expect((await ledger.refresh()).window?.tasks).toBe(2);
    ledger.close();
    await client.destroy();
    await proxy.close();
  });

  it('a Redis that accepts commands and stalls: calls fail with 503 (cause timeout) at the deadline, never hang', async () => {
    const proxy = await startRedisProxy();
    const client = createClient({ url: proxy.url, socket: { connectTimeout: 300, reconnectStrategy: () => 50 } });
    await client.connect();
    const ledger = createRedisBudgetLedger({ client, keyPrefix: freshPrefix(), maxTasksPerMinute: 100, commandTimeoutMs: 300 });
    await ledger.acquire({});
    proxy.stall();
    const started = Date.now();
    const error = await ledger.acquire({}).catch((e: unknown) => e);
    expect(ServiceUnavailableError.isInstance(error)).toBe(true);
    expect((error as ServiceUnavailableError).metadata).toMatchObject({ backend: 'redis', cause: 'timeout' });
    expect(Date.now() - started).toBeLessThan(2000);
    ledger.close();
    client.destroy();
    await proxy.close();
  });

  it('CLIENT KILL of the ledger connection: the client reconnects and the ledger keeps working', async () => {
    const client = await connectTestRedis(SUITE);
    clients.push(client);
    const ledger = createRedisBudgetLedger({ client, keyPrefix: freshPrefix(), maxTasksPerMinute: 100 });
    ledgers.push(ledger);
    await ledger.acquire({});
    const id = await client.clientId();
    await admin.sendCommand(['CLIENT', 'KILL', 'ID', String(id)]);
    let granted = 0;
    for (let attempt = 0; attempt < 40 && granted < 3; attempt++) {
      if (
        await ledger.acquire({}).then(
          () => true,
          () => false,
        )
      )
        granted++;
      else await sleep(50);
    }
    expect(granted).toBe(3);
    expect(REDIS_URL).toMatch(/^redis/);
  });
});
