import { describe, expect, it } from 'vitest';
import { createNonceCache } from '../src/index.js';
import { describeNonceCacheContract } from '../src/testing/index.js';

describeNonceCacheContract('createNonceCache (in memory)', (options) => createNonceCache(options));

describe('createNonceCache', () => {
  it('forgets expired nonces and refuses new ones when full (fails closed)', () => {
    let now = 0;
    const cache = createNonceCache({ maxEntries: 2, maxEntriesPerOwner: 2, clock: () => now });
    expect(cache.add('a', 1000, 'owner')).toBe(true);
    expect(cache.add('a', 1000, 'owner')).toBe(false);
    expect(cache.add('b', 2000, 'owner')).toBe(true);
    expect(cache.add('c', 2000, 'owner')).toBe(false);
    now = 1500;
    expect(cache.add('c', 3000, 'owner')).toBe(true);
    expect(cache.add('a', 3000, 'owner')).toBe(false);
    expect(cache.size).toBe(2);
  });

  it('decides by expiry: an expired nonce is never taken for a replay, and its slot is reused', () => {
    let now = 0;
    const cache = createNonceCache({ clock: () => now });
    expect(cache.add('a', 100, 'owner')).toBe(true);
    now = 200;
    // 'a' expired: accepted again, in the same slot (the cache decides by expiry, not by what is still stored).
    expect(cache.add('a', 300, 'owner')).toBe(true);
    expect(cache.add('a', 300, 'owner')).toBe(false);
    expect(cache.size).toBe(1);
    expect(cache.add('b', 5000, 'owner')).toBe(true);
    now = 1300;
    expect(cache.add('c', 5000, 'owner')).toBe(true);
    // (How many slots are in use now depends on the random seeds: 'c' may have taken the expired
    // 'a''s slot. What is refused may not.)
    expect(cache.add('b', 6000, 'owner')).toBe(false);
    expect(cache.add('c', 6000, 'owner')).toBe(false);
  });

  it('refuses every live nonce again as it grows past many rebuilds, and forgets only expired ones', () => {
    let now = 0;
    const cache = createNonceCache({ maxEntries: 50_000, maxEntriesPerOwner: 50_000, clock: () => now });
    const key = (i: number) => `0123456789abcdef:nonce-${i}`;
    // Each step lists the nonces whose answer was wrong (one assertion per step, not 160,000: under a
    // loaded CI machine that many expect() calls alone outran the test's timeout).
    const wrong = (from: number, to: number, expiresAtMs: (i: number) => number, expected: (i: number) => boolean): number[] => {
      const indexes: number[] = [];
      for (let i = from; i < to; i++) if (cache.add(key(i), expiresAtMs(i), 'owner') !== expected(i)) indexes.push(i);
      return indexes;
    };
    const at = (ms: number) => () => ms;
    const accepted = () => true;
    const refused = () => false;
    // 20000 live nonces: the table grows from 1024 slots through several rebuilds.
    expect(wrong(0, 20_000, at(10_000), accepted)).toEqual([]);
    expect(wrong(0, 20_000, at(10_000), refused)).toEqual([]);
    // Half of them expire; the other half stays refused through the rebuilds that clear the first.
    now = 5_000;
    const oddExpireFirst = (i: number) => (i % 2 ? 6_000 : 20_000);
    expect(wrong(20_000, 40_000, oddExpireFirst, accepted)).toEqual([]);
    now = 10_000;
    expect(wrong(0, 20_000, at(30_000), accepted)).toEqual([]);
    const onlyExpiredAccepted = (i: number) => i % 2 === 1;
    expect(wrong(20_000, 40_000, at(30_000), onlyExpiredAccepted)).toEqual([]);
    expect(wrong(0, 40_000, at(30_000), refused)).toEqual([]);
    expect(cache.size).toBeLessThanOrEqual(50_000);
  });

  it('fails closed when full of live nonces, and a rebuild that frees nothing is tried at most once a second', () => {
    let now = 0;
    const cache = createNonceCache({ maxEntries: 1000, maxEntriesPerOwner: 1000, clock: () => now });
    for (let i = 0; i < 1000; i++) expect(cache.add(`k${i}`, 60_000, 'owner')).toBe(true);
    expect(cache.add('one more', 60_000, 'owner')).toBe(false);
    now = 500;
    expect(cache.add('one more', 60_000, 'owner')).toBe(false);
    for (let i = 0; i < 1000; i++) expect(cache.add(`k${i}`, 60_000, 'owner')).toBe(false);
    // Every nonce has expired: their room is taken again (the seeds are random, so whether a slot
    // is reused in place or the table rebuilt varies; the outcome must not).
    now = 60_000;
    expect(cache.add('one more', 120_000, 'owner')).toBe(true);
    for (let i = 0; i < 999; i++) expect(cache.add(`n${i}`, 120_000, 'owner')).toBe(true);
    expect(cache.add('k0', 120_000, 'owner')).toBe(false);
    expect(cache.size).toBe(1000);
  });

  it('keys on the exact string and holds expiries to the millisecond; an entry already past is refused', () => {
    let now = 1_000;
    const cache = createNonceCache({ clock: () => now });
    expect(cache.add('abc', 1_001, 'owner')).toBe(true);
    expect(cache.add('abd', 1_001, 'owner')).toBe(true);
    expect(cache.add('ab', 1_001, 'owner')).toBe(true);
    expect(cache.add('', 1_001, 'owner')).toBe(true);
    expect(cache.add('abc', 5_000, 'owner')).toBe(false);
    now = 1_001;
    expect(cache.add('abc', 5_000, 'owner')).toBe(true);
    // Issue 42: an entry already past (at or before now, or NaN) is refused, never accepted unrecorded.
    expect(cache.add('past', 1_001, 'owner')).toBe(false);
    expect(cache.add('past', 0, 'owner')).toBe(false);
    expect(cache.add('nan', Number.NaN, 'owner')).toBe(false);
    expect(cache.add('past', 1_002, 'owner')).toBe(true);
    expect(() => createNonceCache({ maxEntries: 0 })).toThrow(RangeError);
    expect(() => createNonceCache({ maxEntriesPerOwner: 0 })).toThrow(RangeError);
  });

  it('keeps every nonce until the millisecond it was given, and refuses at and after it only what is past (issue 42)', () => {
    let now = 10_000;
    const cache = createNonceCache({ clock: () => now });
    expect(cache.add('n', 12_000, 'owner')).toBe(true);
    for (now = 10_000; now < 12_000; now++) if (cache.add('n', 12_000, 'owner')) throw new Error(`replay accepted at ${now}`);
    // At 12_000 the entry is past: the same expiry is now refused as past, a later one taken.
    expect(cache.add('n', 12_000, 'owner')).toBe(false);
    expect(cache.add('n', 12_001, 'owner')).toBe(true);
  });

  it('holds each owner to its share: a caller at its quota is refused while others are served (issue 42)', () => {
    let now = 0;
    const cache = createNonceCache({ maxEntries: 100, maxEntriesPerOwner: 10, clock: () => now });
    for (let i = 0; i < 10; i++) expect(cache.add(`greedy:${i}`, 5_000, 'greedy')).toBe(true);
    expect(cache.add('greedy:10', 5_000, 'greedy')).toBe(false);
    for (let i = 0; i < 10; i++) expect(cache.add(`other:${i}`, 5_000, 'other')).toBe(true);
    // Its nonces expire: its share is free again (a rebuild that frees nothing runs at most once a second).
    now = 5_000;
    expect(cache.add('greedy:10', 10_000, 'greedy')).toBe(true);
    expect(cache.size).toBeLessThanOrEqual(100);
  });

  it('by default one owner may hold at most half of maxEntries', () => {
    const cache = createNonceCache({ maxEntries: 8, clock: () => 0 });
    for (let i = 0; i < 4; i++) expect(cache.add(`a${i}`, 1_000, 'a')).toBe(true);
    expect(cache.add('a4', 1_000, 'a')).toBe(false);
    for (let i = 0; i < 4; i++) expect(cache.add(`b${i}`, 1_000, 'b')).toBe(true);
    expect(cache.add('c0', 1_000, 'c')).toBe(false); // full: fails closed
  });
});
