import type { RateLimiter, RateLimitVerdict } from '@a2aplane/a2a-server-express';
import { TAKE_TOKEN } from './lua.js';
import { createScriptRunner, keyPart, type RedisGovernanceOptions } from './redis-script.js';

export interface RedisRateLimiterOptions extends RedisGovernanceOptions {
  /** Bucket size: the largest burst a key may send, across all replicas. */
  capacity: number;
  /** Tokens added back per second. */
  refillPerSecond: number;
}

function positive(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(`expected ${name} to be a positive number, got ${String(value)}`);
  }
  return value;
}

/**
 * The server's `RateLimiter` with one token bucket per key shared by every replica: the bucket is
 * a Redis hash updated by one Lua script (refill on Redis's clock, then take), so N replicas
 * admit one bucket's worth, not N. A bucket's key expires once it would be full again, so idle
 * keys cost nothing. `take` returns a promise (the server awaits it); when Redis can't be
 * reached it rejects with `ServiceUnavailableError` (503): requests fail closed, not unlimited.
 */
export function createRedisRateLimiter(options: RedisRateLimiterOptions): RateLimiter & {
  take(key: string): Promise<RateLimitVerdict>;
} {
  const capacity = positive(options?.capacity, 'capacity');
  const refillPerSecond = positive(options.refillPerSecond, 'refillPerSecond');
  const runner = createScriptRunner(options);
  // Time for an empty bucket to fill, plus a second of slack.
  const ttl = Math.ceil((capacity / refillPerSecond) * 1000) + 1000;
  return {
    async take(key) {
      if (typeof key !== 'string') throw new TypeError(`expected key to be a string, got ${typeof key}`);
      const reply = (await runner.run(TAKE_TOKEN, [`${runner.prefix}rate:${keyPart(key)}`], [capacity, refillPerSecond, ttl])) as unknown[];
      return Number(reply[0]) === 1 ? { ok: true } : { ok: false, retryAfterSeconds: Number(reply[1]) };
    },
  };
}
