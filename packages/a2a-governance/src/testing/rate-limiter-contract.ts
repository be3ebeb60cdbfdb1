import * as assert from './assert.js';
import type { ContractTestApi } from './contract-api.js';

/** A rate limiter's verdict (the server's `RateLimitVerdict`). */
export type RateLimitVerdictLike = { ok: true } | { ok: false; retryAfterSeconds: number };

/** The server's `RateLimiter` seam (`@a2aplane/a2a-server-express`), by shape. */
export interface RateLimiterLike {
  take(key: string): RateLimitVerdictLike | Promise<RateLimitVerdictLike>;
}

export interface RateLimiterContractOptions {
  /** A fresh limiter with one token bucket per key (a shared backend: its own key prefix). */
  create(bucket: { capacity: number; refillPerSecond: number }): RateLimiterLike | Promise<RateLimiterLike>;
  dispose?(limiter: RateLimiterLike): void | Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The `RateLimiter` contract: a token bucket per key — a burst of `capacity`, then refusals with a
 * whole `retryAfterSeconds` >= 1, tokens back at `refillPerSecond`, keys independent, invalid
 * options refused. Every implementation runs it (`createTokenBucketRateLimiter` of the server
 * package, `createRedisRateLimiter` of `@a2aplane/a2a-redis`).
 */
export function describeRateLimiterContract(name: string, options: RateLimiterContractOptions, t: ContractTestApi): void {
  const made: RateLimiterLike[] = [];
  const open = async (bucket: { capacity: number; refillPerSecond: number }): Promise<RateLimiterLike> => {
    const limiter = await options.create(bucket);
    made.push(limiter);
    return limiter;
  };
  const key = (): string => `contract-${globalThis.crypto.randomUUID()}`;

  t.describe(`RateLimiter contract: ${name}`, () => {
    t.afterEach(async () => {
      for (const limiter of made.splice(0)) await options.dispose?.(limiter);
    });

    t.it('admits a burst of capacity, then refuses with a whole retryAfterSeconds >= 1', async () => {
      const limiter = await open({ capacity: 3, refillPerSecond: 0.1 });
      const k = key();
      for (let i = 0; i < 3; i++) assert.deepEqual(await limiter.take(k), { ok: true });
      const refused = await limiter.take(k);
      assert.equal(refused.ok, false);
      const seconds = (refused as { retryAfterSeconds: number }).retryAfterSeconds;
      assert.ok(Number.isInteger(seconds) && seconds >= 1, `retryAfterSeconds ${seconds}`);
      // 1 token at 0.1/s is 10 s away.
      assert.ok(seconds >= 9 && seconds <= 11, `retryAfterSeconds ${seconds} for one token at 0.1/s`);
    });

    t.it('keeps keys apart', async () => {
      const limiter = await open({ capacity: 1, refillPerSecond: 0.1 });
      const [a, b] = [key(), key()];
      assert.deepEqual(await limiter.take(a), { ok: true });
      assert.equal((await limiter.take(a)).ok, false);
      assert.deepEqual(await limiter.take(b), { ok: true });
    });

    t.it('gives tokens back over time at refillPerSecond', async () => {
      const limiter = await open({ capacity: 1, refillPerSecond: 20 });
      const k = key();
      assert.deepEqual(await limiter.take(k), { ok: true });
      assert.equal((await limiter.take(k)).ok, false);
      // One token takes 50 ms at 20/s; wait four times that.
      await sleep(200);
      assert.deepEqual(await limiter.take(k), { ok: true });
    });

    t.it('refuses a non-positive capacity or refill rate', async () => {
      for (const bad of [
        { capacity: 0, refillPerSecond: 1 },
        { capacity: 1, refillPerSecond: 0 },
        { capacity: Number.NaN, refillPerSecond: 1 },
      ]) {
        let error: unknown;
        try {
          await open(bad);
        } catch (caught) {
          error = caught;
        }
        assert.ok(error instanceof RangeError, `expected a RangeError for ${JSON.stringify(bad)}, got ${String(error)}`);
      }
    });
  });
}
