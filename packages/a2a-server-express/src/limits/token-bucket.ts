import type { RateLimitVerdict } from '../core/types.js';

export interface TokenBucketRateLimiterOptions {
  /** Bucket size: the largest burst a key may send. */
  capacity: number;
  /** Tokens added back per second. */
  refillPerSecond: number;
  /** Milliseconds; defaults to `Date.now`. */
  clock?: () => number;
  /** Keys remembered at once (default 10000); the least recently used is forgotten first. */
  maxKeys?: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

function positive(value: unknown, name: string, integer: boolean): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new RangeError(`expected ${name} to be a positive ${integer ? 'integer' : 'number'}, got ${String(value)}`);
  }
  return value;
}

/**
 * One token bucket per key; a synchronous `RateLimiter` (the server never awaits it). Memory
 * stays bounded by `maxKeys`: a `Map` keeps insertion order, so re-inserting on each use makes
 * its first key the least recently used one.
 */
export function createTokenBucketRateLimiter(options: TokenBucketRateLimiterOptions): { take(key: string): RateLimitVerdict } {
  const capacity = positive(options?.capacity, 'capacity', false);
  const refillPerSecond = positive(options.refillPerSecond, 'refillPerSecond', false);
  const maxKeys = positive(options.maxKeys ?? 10_000, 'maxKeys', true);
  const clock = options.clock ?? Date.now;
  const buckets = new Map<string, Bucket>();

  return {
    take(key) {
      const now = clock();
      let bucket = buckets.get(key);
      if (bucket) {
        buckets.delete(key);
        // A clock that steps backwards never adds tokens.
        const elapsed = Math.max(0, now - bucket.updatedAt) / 1000;
        bucket.tokens = Math.min(capacity, bucket.tokens + elapsed * refillPerSecond);
        bucket.updatedAt = now;
      } else {
        bucket = { tokens: capacity, updatedAt: now };
        while (buckets.size >= maxKeys) {
          const oldest = buckets.keys().next().value as string;
          buckets.delete(oldest);
        }
      }
      buckets.set(key, bucket);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return { ok: true };
      }
      const retryAfterSeconds = Math.max(1, Math.ceil((1 - bucket.tokens) / refillPerSecond));
      return { ok: false, retryAfterSeconds };
    },
  };
}
