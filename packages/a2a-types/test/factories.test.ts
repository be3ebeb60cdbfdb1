import { describe, expect, it } from 'vitest';
import { CircuitBreaker, createCircuitBreaker } from '../src/index.js';

describe('createCircuitBreaker (CircuitBreaker stays as a deprecated alias for one minor)', () => {
  it('makes the same breaker, with the same option checks', () => {
    expect(createCircuitBreaker({ failureThreshold: 2 })).toBeInstanceOf(CircuitBreaker);
    expect(() => createCircuitBreaker({ failureThreshold: 0 })).toThrow();
  });
});
