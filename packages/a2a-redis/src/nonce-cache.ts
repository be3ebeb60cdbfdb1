import type { NonceCache } from '@a2aplane/a2a-identity';
import { createScriptRunner, keyPart, type RedisGovernanceOptions } from './governance/redis-script.js';
import { defineScript } from './script.js';

export interface RedisNonceCacheOptions extends RedisGovernanceOptions {
  /**
   * Nonces one owner (a caller's AgentID) may hold at once across every replica, so no caller can
   * fill Redis for the others. Default 250000 (the in-memory cache's default share).
   */
  maxEntriesPerOwner?: number;
  /**
   * How much longer than asked each nonce is kept, in milliseconds: replicas decide a signature's
   * window on their own clocks, so a replica whose clock is behind would otherwise accept a replay
   * just after another replica's entry left. Keep replica clocks synchronized (NTP) within it.
   * Default 1000.
   */
  clockToleranceMs?: number;
  /** Milliseconds since the epoch: the clock `expiresAtMs` is read against. Default `Date.now`. */
  clock?: () => number;
}

/**
 * One round trip: refuse a live key (a replay); drop the owner's expired entries and refuse when
 * it holds its quota; else SET NX PX the key and note it in the owner's set (scored by expiry on
 * Redis's clock, the set itself expiring with its last entry). 1 recorded, 0 replay, -1 quota.
 * KEYS: the nonce, the owner's set. ARGV: ttl in ms (> 0), quota.
 */
const ADD_NONCE = defineScript(`
local ttl = tonumber(ARGV[1])
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[2]) then return -1 end
redis.call('SET', KEYS[1], '1', 'PX', ttl, 'NX')
redis.call('ZADD', KEYS[2], now + ttl, KEYS[1])
if redis.call('PTTL', KEYS[2]) < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
return 1
`);

function count(value: unknown, name: string, min: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new RangeError(`expected ${name} to be an integer >= ${min}, got ${String(value)}`);
  }
  return value;
}

/**
 * The verified-caller replay cache (a2a-identity's `NonceCache`) shared by every replica on one
 * Redis: a signed request accepted by one replica is refused by every other while its signature
 * can be accepted. Each `add` is one Lua script (SET NX PX plus the owner's quota), so two replicas
 * given the same nonce at once record it once. Keys leave by themselves (PX). When Redis cannot be
 * reached, `add` rejects with `RedisUnavailableError` and the verifier refuses the request (fails
 * closed). The key and the owner's set live on one node: not for Redis Cluster.
 */
export function createRedisNonceCache(options: RedisNonceCacheOptions): NonceCache & {
  add(key: string, expiresAtMs: number, owner: string): Promise<boolean>;
} {
  const runner = createScriptRunner(options);
  const quota = count(options.maxEntriesPerOwner ?? 250_000, 'maxEntriesPerOwner', 1);
  const tolerance = count(options.clockToleranceMs ?? 1000, 'clockToleranceMs', 0);
  const clock = options.clock ?? Date.now;
  if (typeof clock !== 'function') throw new TypeError(`expected clock to be a function, got ${typeof clock}`);
  return {
    async add(key, expiresAtMs, owner) {
      if (typeof key !== 'string' || typeof owner !== 'string' || typeof expiresAtMs !== 'number') return false;
      const ttl = Math.ceil(expiresAtMs - clock());
      // Already past (or NaN): never recorded, so never accepted.
      if (!(ttl > 0)) return false;
      const keys = [`${runner.prefix}nonce:${keyPart(key)}`, `${runner.prefix}nonce-owner:${keyPart(owner)}`];
      return Number(await runner.run(ADD_NONCE, keys, [ttl + tolerance, quota])) === 1;
    },
  };
}
