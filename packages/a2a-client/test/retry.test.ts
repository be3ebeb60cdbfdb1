import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_OPTIONS, parseRetryAfter } from '../src/index.js';
import { backoffDelay, resolveRetryOptions, retryAfterFailure, retryDecision, withRetry } from '../src/retry.js';
import { A2ATransportError } from '../src/errors.js';
import { RateLimitedError, TaskNotFoundError } from '@a2aplane/a2a-types';

describe('retry policy helpers', () => {
  it('parses Retry-After as seconds or an HTTP date (RFC 9110 §10.2.3)', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });

  it('backs off x2 from 100 ms, capped at 5 s, within ±20% jitter', () => {
    const options = resolveRetryOptions(undefined);
    expect(options).toEqual(DEFAULT_RETRY_OPTIONS);
    expect(backoffDelay(options, 0, () => 0.5)).toBe(100);
    expect(backoffDelay(options, 1, () => 0.5)).toBe(200);
    expect(backoffDelay(options, 10, () => 0.5)).toBe(5000);
    expect(backoffDelay(options, 0, () => 0)).toBe(80);
    expect(backoffDelay(options, 0, () => 1)).toBe(120);
  });

  it('retries network errors, 5xx and 429; never 4xx or application errors', () => {
    expect(retryDecision(new A2ATransportError('x', { retryable: true })).retry).toBe(true);
    expect(retryDecision(new A2ATransportError('x', { status: 400 })).retry).toBe(false);
    expect(retryDecision(new RateLimitedError({ retryAfterSeconds: 2 }))).toEqual({ retry: true, afterMs: 2000 });
    expect(retryDecision(new TaskNotFoundError()).retry).toBe(false);
    expect(retryDecision(new Error('x')).retry).toBe(false);
  });

  it('rejects negative options with RangeError', () => {
    expect(() => resolveRetryOptions({ retries: -1 })).toThrow(RangeError);
  });

  it('withRetry and retryAfterFailure run the same attempts: retryable failures up to `retries`, then the last error', async () => {
    const options = resolveRetryOptions({ retries: 2, initialDelayMs: 0, jitter: 0 });
    const failing = (until: number) => {
      const seen: number[] = [];
      const attempt = async (n: number): Promise<string> => {
        seen.push(n);
        if (n < until) throw new A2ATransportError(`down ${n}`, { retryable: true });
        return `ok ${n}`;
      };
      return { seen, attempt };
    };
    const recovers = failing(2);
    expect(await withRetry(options, undefined, recovers.attempt)).toBe('ok 2');
    expect(recovers.seen).toEqual([0, 1, 2]);
    const down = failing(9);
    await expect(withRetry(options, undefined, down.attempt)).rejects.toThrow('down 2');
    expect(down.seen).toEqual([0, 1, 2]);
    // The client runs attempt 0 itself and hands over its error.
    const after = failing(2);
    expect(await retryAfterFailure(options, undefined, after.attempt, new A2ATransportError('down 0', { retryable: true }))).toBe('ok 2');
    expect(after.seen).toEqual([1, 2]);
    const final = failing(9);
    await expect(retryAfterFailure(options, undefined, final.attempt, new TaskNotFoundError({ message: 'gone' }))).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
    expect(final.seen).toEqual([]);
  });
});
