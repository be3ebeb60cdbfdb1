import { describeValue } from '@a2aplane/a2a-types';

/**
 * Remembers nonces until their signature can no longer be accepted, so a captured request cannot
 * be replayed. The verifier's seam: in memory (`createNonceCache`) for one process, or shared by
 * replicas (a2a-redis `createRedisNonceCache`, a PostgreSQL one), which answer with a promise.
 */
export interface NonceCache {
  /**
   * Records `key` (already scoped by the caller: e.g. agentId + nonce) until at least `expiresAtMs`.
   * Resolves false for a replay, for an entry already past, or when `owner`'s quota or the cache is full.
   */
  add(key: string, expiresAtMs: number, owner: string): boolean | Promise<boolean>;
}

/** The in-memory cache: answers at once, and says how full it is. */
export interface InMemoryNonceCache extends NonceCache {
  add(key: string, expiresAtMs: number, owner: string): boolean;
  /** Slots in use: live nonces and expired ones not yet cleared. */
  readonly size: number;
}

export interface NonceCacheOptions {
  /** Nonces held at most; past it new ones are refused (fail closed). Default 500000. */
  maxEntries?: number;
  /**
   * Nonces one owner (the caller's AgentID) may hold at once, so no caller can fill the cache for
   * the others. Default half of `maxEntries`.
   */
  maxEntriesPerOwner?: number;
  /** Milliseconds since the epoch. Default `Date.now`. */
  clock?: () => number;
}

const EMPTY = 0;
const MIN_CAPACITY = 1024;
/**
 * Probes before an add gives up and refuses (fails closed). The table is at most half full and
 * probed by double hashing, so an honest add goes past 128 slots with odds of about 2^-128; only
 * keys chosen to collide (by a caller who already signs validly) get here.
 */
const MAX_PROBES = 128;
/** A rebuild that frees nothing (the table or an owner's share full of live nonces) runs at most this often. */
const REBUILD_INTERVAL_MS = 1000;
/** Random seeds per cache, so keys that collide in one cache are not known in advance. */
function randomSeeds(): Uint32Array {
  return globalThis.crypto.getRandomValues(new Uint32Array(2));
}

function checkCount(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`expected ${name} >= 1, got ${describeValue(value)}`);
  return value;
}

/**
 * A bounded in-memory nonce cache. An entry is live while the clock reads less than its
 * `expiresAtMs` (the verifier passes the first millisecond at which the signature is no longer
 * accepted) and an entry already past is refused; when full, or when the owner holds its share,
 * it refuses new nonces (fails closed) rather than forget live ones. Size it for your rate: a
 * nonce is held for the signature's lifetime plus the clock skew (90 s with the default signer),
 * so the default 500000 entries hold about 5500 signed requests a second. One process only:
 * behind a load balancer, share a cache (a2a-redis `createRedisNonceCache`).
 *
 * It holds no JavaScript object per nonce (decision 0042): each key is kept as a 64-bit keyed hash,
 * an expiry and an owner number in typed arrays (an open-addressing table, at most half full, 20
 * bytes a slot, at most 4 x maxEntries slots: 40 MB for the default), so a busy server's garbage
 * collector has nothing to copy, promote or mark per request. A repeated key always has the same
 * hash, so a replay is always refused. Two different keys with the same 64-bit hash would refuse the
 * second as a replay (never accept one): with 500000 live nonces, odds of about 3 x 10^-14 a request.
 */
export function createNonceCache(options?: NonceCacheOptions): InMemoryNonceCache {
  const maxEntries = checkCount(options?.maxEntries ?? 500_000, 'maxEntries');
  const maxPerOwner = checkCount(options?.maxEntriesPerOwner ?? Math.ceil(maxEntries / 2), 'maxEntriesPerOwner');
  const clock = options?.clock ?? Date.now;
  if (typeof clock !== 'function') throw new TypeError(`expected clock to be a function, got ${describeValue(clock)}`);
  // At most a quarter full right after a rebuild, so the next one is maxEntries adds away.
  const maxCapacity = Math.max(MIN_CAPACITY, 2 ** Math.ceil(Math.log2(maxEntries * 4)));
  const [seedA, seedB] = randomSeeds() as unknown as [number, number];
  let capacity = MIN_CAPACITY;
  let high = new Uint32Array(capacity);
  let low = new Uint32Array(capacity);
  // Milliseconds since the epoch; EMPTY marks a slot never used since the last rebuild.
  let expiry = new Float64Array(capacity);
  // Each slot's owner, as its number in `owners`.
  let ownerOf = new Uint32Array(capacity);
  const owners = createOwnerTable();
  let used = 0;
  let lastFruitlessRebuild = Number.NEGATIVE_INFINITY;
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
      // Live while now < expiresAt: the same bound the verifier accepts a signature by.
      if (high[index] === hashHigh && low[index] === hashLow) return expiresAt > now ? -1 : index;
      if (reusable < 0 && expiresAt <= now) reusable = index;
      index = (index + step) & mask;
    }
    // The key may be further along: refuse rather than risk holding it twice.
    return -1;
  };

  /** Keeps the live entries only, in a table sized for them (at most a quarter full), and recounts each owner's. */
  const rebuild = (now: number): void => {
    let live = 0;
    for (let i = 0; i < capacity; i++) if ((expiry[i] as number) > now) live++;
    let size = MIN_CAPACITY;
    while (size < live * 4 && size < maxCapacity) size *= 2;
    const [oldHigh, oldLow, oldExpiry, oldOwnerOf, oldCapacity] = [high, low, expiry, ownerOf, capacity];
    const oldNames = owners.clear();
    capacity = size;
    high = new Uint32Array(size);
    low = new Uint32Array(size);
    expiry = new Float64Array(size);
    ownerOf = new Uint32Array(size);
    used = 0;
    for (let i = 0; i < oldCapacity; i++) {
      const expiresAt = oldExpiry[i] as number;
      if (expiresAt <= now) continue;
      hashHigh = oldHigh[i] as number;
      hashLow = oldLow[i] as number;
      const slot = slotFor(now);
      // Cannot happen in a table at most a quarter full with distinct hashes; never lose a live entry.
      if (slot < 0 || (expiry[slot] as number) !== EMPTY) throw new Error('nonce cache rebuild lost an entry');
      write(slot, expiresAt, owners.numberOf(oldNames[oldOwnerOf[i] as number] as string));
    }
  };

  const write = (slot: number, expiresAt: number, owner: number): void => {
    if ((expiry[slot] as number) === EMPTY) used++;
    else owners.count(ownerOf[slot] as number, -1); // an expired entry's slot, taken again
    high[slot] = hashHigh;
    low[slot] = hashLow;
    // Never EMPTY: an expiry at or before the epoch is simply already past.
    expiry[slot] = expiresAt > EMPTY ? expiresAt : Number.MIN_VALUE;
    ownerOf[slot] = owner;
    owners.count(owner, 1);
  };

  /**
   * Whether a new entry of `owner` would pass a bound. Expired entries still count until a rebuild
   * clears them, so a rebuild decides: at most once a second when the bound is really reached
   * (a rebuild is linear in the table and may then free nothing). Sets `rebuilt` when it ran.
   */
  let rebuilt = false;
  const overBound = (owner: string, now: number, newSlot: boolean): boolean => {
    rebuilt = false;
    const tableFull = newSlot && (used + 1 > capacity / 2 || used >= maxEntries || owners.size() >= maxEntries);
    const ownerFull = owners.heldBy(owner) >= maxPerOwner;
    if (!tableFull && !ownerFull) return false;
    const atBound = used >= maxEntries || ownerFull;
    if (atBound && (ownerFull || capacity >= maxCapacity) && now - lastFruitlessRebuild < REBUILD_INTERVAL_MS) return true;
    if (atBound) lastFruitlessRebuild = now;
    rebuild(now);
    rebuilt = true;
    return used >= maxEntries || owners.heldBy(owner) >= maxPerOwner;
  };

  return {
    get size() {
      return used;
    },
    add(key, expiresAtMs, owner) {
      if (typeof key !== 'string' || typeof owner !== 'string' || typeof expiresAtMs !== 'number') return false;
      const now = clock();
      // An entry already past (or NaN) would not be held at all: refuse it, never accept unrecorded.
      if (!(expiresAtMs > now)) return false;
      hash(key);
      let slot = slotFor(now);
      if (slot < 0) return false;
      if (overBound(owner, now, (expiry[slot] as number) === EMPTY)) return false;
      if (rebuilt) {
        hash(key); // the rebuild hashed other keys and moved every entry
        slot = slotFor(now);
        if (slot < 0) return false;
      }
      write(slot, expiresAtMs, owners.numberOf(owner));
      return true;
    },
  };
}

/** Entries per owner (live, or expired and not yet cleared), by a number per owner that each slot stores. */
function createOwnerTable() {
  let numbers = new Map<string, number>();
  let held: number[] = [];
  return {
    numberOf(owner: string): number {
      let number = numbers.get(owner);
      if (number === undefined) {
        number = held.length;
        numbers.set(owner, number);
        held.push(0);
      }
      return number;
    },
    heldBy(owner: string): number {
      const number = numbers.get(owner);
      return number === undefined ? 0 : (held[number] as number);
    },
    count(number: number, delta: number): void {
      held[number] = (held[number] as number) + delta;
    },
    size: (): number => numbers.size,
    /** Forgets every owner; their names by number, for a rebuild to count again. */
    clear(): string[] {
      const names = [...numbers.keys()];
      numbers = new Map();
      held = [];
      return names;
    },
  };
}

/** MurmurHash3's finalizer: every input bit affects every output bit. */
function finish(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}
