import { describe, expect, it } from 'vitest';
import { withDeadline } from '../src/connection.js';
import { RedisUnavailableError } from '../src/errors.js';

const never = () => new Promise<never>(() => undefined);
const later = <T>(value: T, ms: number) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe('withDeadline (one timer per timeout value)', () => {
  it('expires each pending call, whatever settled before or after it; settled calls keep their outcome', async () => {
    const calls = [
      withDeadline(40, () => Promise.resolve('a')),
      withDeadline(40, never),
      withDeadline(40, () => later('c', 5)),
      withDeadline(40, () => Promise.reject(new Error('boom'))),
      withDeadline(40, never),
    ];
    const results = await Promise.allSettled(calls);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      'a',
      expect.stringContaining('Redis'),
      'c',
      'boom',
      expect.stringContaining('Redis'),
    ]);
    for (const i of [1, 4]) {
      const reason = (results[i] as PromiseRejectedResult).reason;
      expect(RedisUnavailableError.isInstance(reason)).toBe(true);
      expect((reason as RedisUnavailableError).metadata.cause).toBe('timeout');
    }
  });

  it('works again after its queue drained, and keeps calls of another timeout apart', async () => {
    expect(await withDeadline(30, () => Promise.resolve(1))).toBe(1);
    const short = withDeadline(20, never).catch((e: unknown) => e);
    const long = withDeadline(5_000, () => later('long', 60));
    expect(RedisUnavailableError.isInstance(await short)).toBe(true);
    expect(await long).toBe('long');
    const again = await withDeadline(30, never).catch((e: unknown) => e);
    expect(RedisUnavailableError.isInstance(again)).toBe(true);
  });

  it('a call that throws synchronously rejects with its error', async () => {
    const error = await withDeadline(30, () => {
      throw new Error('sync');
    }).catch((e: unknown) => e);
    expect((error as Error).message).toBe('sync');
  });
});
