import { createHash } from 'node:crypto';
import type { Pool } from 'pg';
import { DEFAULT_SCHEMA, hasNul, positive, query, quoteSchema } from '../sql.js';
import { statement } from '../statement.js';

/**
 * The replay cache seam of verified callers, as `@a2aplane/a2a-identity` declares it once it may
 * answer asynchronously (declared here structurally until both sides ship together).
 */
export interface AsyncNonceCache {
  /**
   * Remembers `key` until `expiresAtMs` for `owner` (the verified caller). `false`: a replay (the
   * key is held), an entry already past, or `owner` at its quota.
   */
  add(key: string, expiresAtMs: number, owner: string): Promise<boolean>;
}

export interface PostgresNonceCacheOptions {
  pool: Pool;
  /** The schema `migrate()` created (shared with the task store). Default `a2a`. */
  schema?: string;
  /**
   * Most live nonces per owner: a caller who signs validly cannot fill the table for everyone.
   * Under concurrent adds of one owner the count may overshoot by the number of adds in flight.
   * Default 100 000 (with a 90 s signature lifetime, about 1 100 signed requests a second per caller).
   */
  maxEntriesPerOwner?: number;
  /** Deadline of one statement; past it `add` rejects with `PostgresUnavailableError` (503), never answers true. Default 2 000 ms. */
  statementTimeoutMs?: number;
  /** Clock, for tests. */
  now?: () => number;
}

/**
 * Creates the shared replay cache on PostgreSQL: every replica adding the nonce of one signed
 * request races on one primary key, so exactly one of them gets `true`, within the signature's
 * validity window (decision 0077). Keys are stored as SHA-256 digests (fixed size, whatever the
 * caller sent). Expired rows are reused at once and deleted by the task store's sweep.
 */
export function createPostgresNonceCache(options: PostgresNonceCacheOptions): AsyncNonceCache {
  const { pool } = options;
  const s = quoteSchema(options.schema ?? DEFAULT_SCHEMA);
  const maxPerOwner = positive('maxEntriesPerOwner', options.maxEntriesPerOwner ?? 100_000);
  const timeoutMs = positive('statementTimeoutMs', options.statementTimeoutMs ?? 2_000);
  const now = options.now ?? Date.now;
  const add = statement(`WITH held AS (SELECT count(*) AS n FROM ${s}.nonces WHERE owner = $2 AND expires_at > $4)
INSERT INTO ${s}.nonces AS x (key, owner, expires_at) SELECT $1, $2, $3 WHERE (SELECT n FROM held) < $5
ON CONFLICT (key) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at WHERE x.expires_at <= $4
RETURNING 1`);
  return {
    async add(key, expiresAtMs, owner) {
      if (typeof key !== 'string' || typeof owner !== 'string')
        throw new TypeError(`expected key and owner strings, got ${typeof key} and ${typeof owner}`);
      if (!Number.isFinite(expiresAtMs)) throw new RangeError(`expected expiresAtMs to be a finite number, got ${expiresAtMs}`);
      const at = now();
      if (expiresAtMs <= at || hasNul(owner)) return false;
      const digest = createHash('sha256').update(key, 'utf8').digest('base64url');
      const rows = await query(pool, timeoutMs, add, [digest, owner, Math.ceil(expiresAtMs), at, maxPerOwner]);
      return rows.length === 1;
    },
  };
}
