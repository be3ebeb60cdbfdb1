import { describeValue } from '@a2aplane/a2a-types';

/** Remembers nonces until their signature expires, so a captured request cannot be replayed. */
export interface NonceCache {
  /** False when `key` is already held (a replay) or the cache is full. */
  add(key: string, expiresAtMs: number): boolean;
  /** Slots in use: live nonces and expired ones not yet cleared. */
  readonly size: number;
}

const EMPTY = 0;
const MIN_CAPACITY = 1024;
/**
 * Probes before an add gives up and refuses (fails closed). The table is at most half full and
 * probed by double hashing, so an honest add goes past 128 slots with odds of about 2^-128; only
 * keys chosen to collide (by a caller who already signs validly) get here.
 */
const MAX_PROBES = 128;
/** Random seeds per cache, so keys that collide in one cache are not known in advance. */
function randomSeeds(): Uint32Array {
  return globalThis.crypto.getRandomValues(new Uint32Array(2));
}

/**
 * A bounded in-memory nonce cache. Entries leave when their signature expires; when full it
 * refuses new nonces (fails closed) rather than forget live ones. Size it for your rate: a nonce
 * is held for the signature's lifetime plus the clock skew (90 s with the default signer), so
 * the default 500000 entries hold about 5500 signed requests a second. One process only: behind a
 * load balancer, pin callers to an instance or share a cache with the same interface.
 *
 * It holds no JavaScript object per nonce (decision 0042): each key is kept as a 64-bit keyed hash
 * and an expiry in typed arrays (an open-addressing table, at most half full, 16 bytes a slot, at
 * most 4 x maxEntries slots: 32 MB for the default), so a busy server's garbage collector has
 * nothing to copy, promote or mark per request. A repeated key always has the same hash, so a
 * replay is always refused. Two different keys with the same 64-bit hash would refuse the second
 * as a replay (never accept one): with 500000 live nonces, odds of about 3 x 10^-14 a request.
 */
export function createNonceCache(options?: { maxEntries?: number; clock?: () => number }): NonceCache {
  const maxEntries = options?.maxEntries ?? 500_000;
  if (!Number.isSafeInteger(maxEntries) || maxEntries < 1)
    throw new RangeError(`expected maxEntries >= 1, got ${describeValue(maxEntries)}`);
  const clock = options?.clock ?? Date.now;
  // At most a quarter full right after a rebuild, so the next one is maxEntries adds away.
  const maxCapacity = Math.max(MIN_CAPACITY, 2 ** Math.ceil(Math.log2(maxEntries * 4)));
  const [seedA, seedB] = randomSeeds() as unknown as [number, number];
  let capacity = MIN_CAPACITY;
  let high = new Uint32Array(capacity);
  let low = new Uint32Array(capacity);
  // Milliseconds since the epoch; EMPTY marks a slot never used since the last rebuild.
  let expiry = new Float64Array(capacity);
  let used = 0;
  let lastFullRebuild = Number.NEGATIVE_INFINITY;
  // The two halves of the last hashed key (no object per call).
  let hashHigh = 0;
  let hashLow = 0;

  const hash = (key: string): void => {
    let a = seedA ^ key.length;
    let b = seedB ^ Math.imul(key.length, 0x9e3779b1);
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i);
      a = Math.imul(a ^ c, 0x85ebca6b);
      a = (a << 13) | (a >>> 19);
      b = Math.imul(b ^ c, 0xc2b2ae35);
      b = (b << 17) | (b >>> 15);
    }
    hashHigh = finish(a ^ Math.imul(b, 0x27d4eb2f)) >>> 0;
    hashLow = finish(b ^ Math.imul(a, 0x165667b1)) >>> 0;
  };

  /** The slot of (hashHigh, hashLow) to write, or -1: already live (a replay), or no slot within MAX_PROBES. */
  const slotFor = (now: number): number => {
    const mask = capacity - 1;
    // Double hashing: an odd step visits every slot of a power-of-two table.
    const step = (hashHigh | 1) & mask;
    let index = hashLow & mask;
    let reusable = -1;
    for (let probe = 0; probe < MAX_PROBES; probe++) {
      const expiresAt = expiry[index] as number;
      if (expiresAt === EMPTY) return reusable >= 0 ? reusable : index;
      if (high[index] === hashHigh && low[index] === hashLow) return expiresAt > now ? -1 : index;
      if (reusable < 0 && expiresAt <= now) reusable = index;
      index = (index + step) & mask;
    }
    // The key may be further along: refuse rather than risk holding it twice.
    return -1;
  };

  /** Keeps the live entries only, in a table sized for them (at most a quarter full). */
  const rebuild = (now: number): void => {
    let live = 0;
    for (let i = 0; i < capacity; i++) if ((expiry[i] as number) > now) live++;
    let size = MIN_CAPACITY;
    while (size < live * 4 && size < maxCapacity) size *= 2;
    const [oldHigh, oldLow, oldExpiry, oldCapacity] = [high, low, expiry, capacity];
    capacity = size;
    high = new Uint32Array(size);
    low = new Uint32Array(size);
    expiry = new Float64Array(size);
    used = 0;
    for (let i = 0; i < oldCapacity; i++) {
      const expiresAt = oldExpiry[i] as number;
      if (expiresAt <= now) continue;
      hashHigh = oldHigh[i] as number;
      hashLow = oldLow[i] as number;
      const slot = slotFor(now);
      // Cannot happen in a table at most a quarter full with distinct hashes; never lose a live entry.
      if (slot < 0 || (expiry[slot] as number) !== EMPTY) throw new Error('nonce cache rebuild lost an entry');
      write(slot, expiresAt);
    }
  };

  const write = (slot: number, expiresAt: number): void => {
    if ((expiry[slot] as number) === EMPTY) used++;
    high[slot] = hashHigh;
    low[slot] = hashLow;
    // Never EMPTY: an expiry at or before the epoch is simply already past.
    expiry[slot] = expiresAt > EMPTY ? expiresAt : Number.MIN_VALUE;
  };

  return {
    get size() {
      return used;
    },
    add(key, expiresAtMs) {
      if (typeof key !== 'string') return false;
      const now = clock();
      hash(key);
      let slot = slotFor(now);
      if (slot < 0) return false;
      if ((expiry[slot] as number) === EMPTY && (used + 1 > capacity / 2 || used >= maxEntries)) {
        // Full: a rebuild is linear in the table, so at most once a second when it frees nothing.
        if (used >= maxEntries && capacity >= maxCapacity && now - lastFullRebuild < 1000) return false;
        if (used >= maxEntries) lastFullRebuild = now;
        rebuild(now);
        if (used >= maxEntries) return false;
        hash(key); // the rebuild hashed other keys
        slot = slotFor(now);
        if (slot < 0) return false;
      }
      write(slot, Number.isNaN(expiresAtMs) ? Number.POSITIVE_INFINITY : expiresAtMs);
      return true;
    },
  };
}

/** MurmurHash3's finalizer: every input bit affects every output bit. */
function finish(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}
