import { describe, expect, it } from 'vitest';
import { backoffDelay, createCircuitBreaker, parseRetryAfter } from '../src/index.js';

const options = { initialDelayMs: 100, maxDelayMs: 1000, factor: 2, jitter: 0.2 };

describe('backoffDelay', () => {
  it('grows by the factor and stops at maxDelayMs', () => {
    const middle = () => 0.5; // no spread
    expect([0, 1, 2, 3, 4, 5].map((attempt) => backoffDelay(options, attempt, middle))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('spreads by at most ±jitter', () => {
    expect(backoffDelay(options, 1, () => 0)).toBe(160);
    expect(backoffDelay(options, 1, () => 1)).toBe(240);
  });

  it("takes a server's Retry-After as a floor, never as a shortcut", () => {
    expect(backoffDelay(options, 0, () => 0.5, 3000)).toBe(3000);
    expect(backoffDelay(options, 3, () => 0.5, 10)).toBe(800);
  });
});

describe('parseRetryAfter (RFC 9110 §10.2.3)', () => {
  it('reads delay-seconds', () => expect(parseRetryAfter(' 7 ')).toBe(7000));
  it('reads an HTTP date relative to now, a past date as 0', () => {
    const now = Date.parse('Sun, 06 Nov 1994 08:49:37 GMT');
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:40 GMT', now)).toBe(3000);
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:00 GMT', now)).toBe(0);
  });
  it('answers undefined for nothing or garbage', () => {
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter('')).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter('-5')).toBeUndefined();
  });
});

describe('createCircuitBreaker', () => {
  it('opens after the threshold and admits one probe after the cooldown', () => {
    let now = 0;
    const breaker = createCircuitBreaker({ failureThreshold: 2, cooldownMs: 50, clock: () => now });
    breaker.recordFailure();
    expect(breaker.canRequest()).toBe(true);
    breaker.recordFailure();
    expect(breaker.canRequest()).toBe(false);
    now = 50;
    expect(breaker.canRequest()).toBe(true);
    expect(breaker.canRequest()).toBe(false);
    breaker.recordSuccess();
    expect(breaker.state()).toBe('closed');
  });
});
