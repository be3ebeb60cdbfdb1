import { describe, expect, it } from 'vitest';
import { createTokenBucketRateLimiter } from '../src/limits/index.js';

function fakeClock(start = 1_000_000) {
  let now = start;
  return {
    clock: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('createTokenBucketRateLimiter', () => {
  it('admits a burst of `capacity` requests, then refuses with retryAfterSeconds', () => {
    const { clock } = fakeClock();
    const limiter = createTokenBucketRateLimiter({ capacity: 3, refillPerSecond: 0.5, clock });
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
    // One token takes 2 s at 0.5/s.
    expect(limiter.take('a')).toEqual({ ok: false, retryAfterSeconds: 2 });
  });

  it('refills over time without exceeding capacity', () => {
    const { clock, advance } = fakeClock();
    const limiter = createTokenBucketRateLimiter({ capacity: 2, refillPerSecond: 1, clock });
    limiter.take('a');
    limiter.take('a');
    expect(limiter.take('a').ok).toBe(false);
    advance(1000);
    expect(limiter.take('a')).toEqual({ ok: true });
    expect(limiter.take('a').ok).toBe(false);
    advance(60_000);
    expect(limiter.take('a').ok).toBe(true);
    expect(limiter.take('a').ok).toBe(true);
    expect(limiter.take('a').ok).toBe(false);
  });

  it('rounds retryAfterSeconds up from a partial token and never reports less than 1', () => {
    const { clock, advance } = fakeClock();
    const limiter = createTokenBucketRateLimiter({ capacity: 1, refillPerSecond: 10, clock });
    limiter.take('a');
    expect(limiter.take('a')).toEqual({ ok: false, retryAfterSeconds: 1 });
    const slow = createTokenBucketRateLimiter({ capacity: 1, refillPerSecond: 0.25, clock });
    slow.take('b');
    advance(1000); // 0.25 token back: 0.75 missing -> 3 s
    expect(slow.take('b')).toEqual({ ok: false, retryAfterSeconds: 3 });
  });

  it('keeps separate buckets per key', () => {
    const { clock } = fakeClock();
    const limiter = createTokenBucketRateLimiter({ capacity: 1, refillPerSecond: 1, clock });
    expect(limiter.take('a').ok).toBe(true);
    expect(limiter.take('b').ok).toBe(true);
    expect(limiter.take('a').ok).toBe(false);
  });

  it('bounds memory with maxKeys, evicting the least recently used key', () => {
    const { clock } = fakeClock();
    const limiter = createTokenBucketRateLimiter({ capacity: 1, refillPerSecond: 0.001, clock, maxKeys: 2 });
    limiter.take('a');
    limiter.take('b');
    expect(limiter.take('a').ok).toBe(false); // touches a: b is now least recently used
    limiter.take('c'); // evicts b
    expect(limiter.take('a').ok).toBe(false); // a was kept, still empty
    expect(limiter.take('b').ok).toBe(true); // b was forgotten: full bucket again (evicts c)
    expect(limiter.take('c').ok).toBe(true);
  });

  it('does not add tokens when the clock steps backwards', () => {
    const { clock, advance } = fakeClock();
    const limiter = createTokenBucketRateLimiter({ capacity: 1, refillPerSecond: 1, clock });
    limiter.take('a');
    advance(-10_000);
    expect(limiter.take('a').ok).toBe(false);
  });

  it('throws RangeError on bad options', () => {
    expect(() => createTokenBucketRateLimiter({ capacity: 0, refillPerSecond: 1 })).toThrow(RangeError);
    expect(() => createTokenBucketRateLimiter({ capacity: 1, refillPerSecond: Number.NaN })).toThrow(RangeError);
    expect(() => createTokenBucketRateLimiter({ capacity: 1, refillPerSecond: 1, maxKeys: 1.5 })).toThrow(RangeError);
  });
});
