import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from '../src/index.js';

describe('CircuitBreaker (ADR-159 open question 1: open on N failures, half-open with probe)', () => {
  const make = () => {
    let now = 0;
    const breaker = new CircuitBreaker({ failureThreshold: 3, cooldownMs: 1000, clock: () => now });
    return { breaker, advance: (ms: number) => (now += ms) };
  };

  it('opens after N consecutive failures (503-equivalent) and refuses requests', () => {
    const { breaker } = make();
    breaker.recordFailure();
    breaker.recordFailure();
    expect(breaker.state()).toBe('closed');
    expect(breaker.canRequest()).toBe(true);
    breaker.recordFailure();
    expect(breaker.state()).toBe('open');
    expect(breaker.canRequest()).toBe(false);
  });

  it('a success in between resets the consecutive count', () => {
    const { breaker } = make();
    breaker.recordFailure();
    breaker.recordFailure();
    breaker.recordSuccess();
    breaker.recordFailure();
    breaker.recordFailure();
    expect(breaker.state()).toBe('closed');
  });

  it('admits exactly one probe after the cooldown and closes on its success', () => {
    const { breaker, advance } = make();
    for (let i = 0; i < 3; i++) breaker.recordFailure();
    advance(999);
    expect(breaker.canRequest()).toBe(false);
    advance(1);
    expect(breaker.state()).toBe('half-open');
    expect(breaker.canRequest()).toBe(true);
    expect(breaker.canRequest()).toBe(false);
    expect(breaker.isAvailable()).toBe(false);
    breaker.recordSuccess();
    expect(breaker.state()).toBe('closed');
    expect(breaker.canRequest()).toBe(true);
  });

  it('re-opens for a fresh cooldown when the probe fails', () => {
    const { breaker, advance } = make();
    for (let i = 0; i < 3; i++) breaker.recordFailure();
    advance(1000);
    expect(breaker.canRequest()).toBe(true);
    breaker.recordFailure();
    expect(breaker.state()).toBe('open');
    advance(999);
    expect(breaker.canRequest()).toBe(false);
    advance(1);
    expect(breaker.canRequest()).toBe(true);
  });

  it('rejects bad options with RangeError', () => {
    expect(() => new CircuitBreaker({ failureThreshold: 0 })).toThrow(RangeError);
    expect(() => new CircuitBreaker({ cooldownMs: -1 })).toThrow(RangeError);
  });
});
