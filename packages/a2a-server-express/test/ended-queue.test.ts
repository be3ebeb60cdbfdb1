import { describe, expect, it } from 'vitest';
import { EndedQueue } from '../src/store/ended-queue.js';

/** A queue over a map of what is ended now (key -> when), as the store's terminal index. */
function queueOver(current: Map<string, number>): EndedQueue {
  return new EndedQueue((key, endedAt) => current.get(key) === endedAt);
}

describe('EndedQueue', () => {
  it('hands out the key that ended first and is still as it ended, skipping stale items and the one excepted', () => {
    const current = new Map<string, number>();
    const queue = queueOver(current);
    for (const [key, at] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ] as const) {
      current.set(key, at);
      queue.push(key, at);
    }
    expect(queue.oldest()).toBe('a');
    // Excepted: skipped, not consumed.
    expect(queue.oldest('a')).toBe('b');
    expect(queue.oldest()).toBe('a');
    // 'a' went on and ended again later: its first item is stale, its new one comes last.
    current.set('a', 4);
    queue.push('a', 4);
    expect(queue.oldest()).toBe('b');
    current.delete('b');
    current.delete('c');
    expect(queue.oldest()).toBe('a');
    current.delete('a');
    expect(queue.oldest()).toBeUndefined();
  });

  it('stays within about twice what is held when its oldest item never goes, and keeps one item per key', () => {
    const current = new Map<string, number>([['first', 0]]);
    const queue = queueOver(current);
    queue.push('first', 0);
    // One key ending again and again: every earlier item goes stale, the oldest stays current.
    for (let at = 1; at <= 5_000; at++) {
      current.set('again', at);
      queue.push('again', at);
      queue.push('again', at);
      queue.compact(current.size);
    }
    expect(queue.pending).toBeLessThanOrEqual(2 * current.size + 1024 + 1);
    expect(queue.oldest()).toBe('first');
    current.delete('first');
    expect(queue.oldest()).toBe('again');
    queue.compact(current.size);
    current.delete('again');
    expect(queue.oldest()).toBeUndefined();
  });

  it('drops its consumed front', () => {
    const current = new Map<string, number>();
    const queue = queueOver(current);
    for (let i = 0; i < 3_000; i++) queue.push(`k${i}`, i);
    current.set('k2999', 2999);
    expect(queue.oldest()).toBe('k2999');
    queue.compact(current.size);
    expect(queue.pending).toBe(1);
  });
});
