import type { PushOutbox, PushOutboxEntry, PushOutboxLease } from '@a2aplane/a2a-server-express';
import type { Pool } from 'pg';
import { DEFAULT_SCHEMA, hasNul, positive, query, quoteSchema } from '../sql.js';
import { statement } from '../statement.js';
import { open, type PushConfigKeyring, seal } from './keyring.js';

export interface PostgresPushOutboxOptions {
  /** A `pg.Pool` on the database (the outbox neither connects nor ends it). */
  pool: Pool;
  /** The schema `migrate()` created (version 4 or newer); every replica of one agent uses the same. Default `a2a`. */
  schema?: string;
  /**
   * The operator's push config keys: an entry holds the push config with its credentials, so it is
   * sealed (AES-256-GCM) as the task store's push configs are. Required: there is no plaintext mode.
   */
  pushConfigKeys: PushConfigKeyring;
  /** Deadline of one statement; past it the call fails with `PostgresUnavailableError` (503). Default 5 000 ms. */
  statementTimeoutMs?: number;
}

/** Milliseconds of the database's clock: leases never compare two replicas' clocks. */
const NOW = '(extract(epoch FROM clock_timestamp()) * 1000)::bigint';

/** Holders whose lease ended this long ago and that hold nothing are forgotten. */
const FORGET_AFTER_MS = 60_000;

/** What a sealed entry is bound to: a sealed value copied to another row does not open. */
const entryAad = (id: string): string => JSON.stringify(['a2a-push-outbox', id]);

function outboxStatements(s: string) {
  const renew = `INSERT INTO ${s}.push_outbox_holders (holder, lease_until) VALUES ($1, ${NOW} + $2::bigint)
  ON CONFLICT (holder) DO UPDATE SET lease_until = EXCLUDED.lease_until`;
  return {
    // An id already stored keeps its place (seq) and holder; only its sealed entry is replaced.
    enqueue: statement(`WITH renew AS (${renew})
INSERT INTO ${s}.push_outbox (id, holder, key_id, sealed) VALUES ($3, $1, $4, $5)
ON CONFLICT (id) DO UPDATE SET key_id = EXCLUDED.key_id, sealed = EXCLUDED.sealed`),
    renew: statement(renew),
    // Entries of holders without a live lease ('' and forgotten holders have none). Rows another
    // claimer has locked are skipped, not waited on: replicas claiming together split the work.
    claim: statement(`WITH taken AS (
  SELECT o.seq FROM ${s}.push_outbox o
  WHERE o.holder <> $1
    AND NOT EXISTS (SELECT 1 FROM ${s}.push_outbox_holders h WHERE h.holder = o.holder AND h.lease_until >= ${NOW})
  ORDER BY o.seq LIMIT $2 FOR UPDATE OF o SKIP LOCKED)
UPDATE ${s}.push_outbox o SET holder = $1 FROM taken WHERE o.seq = taken.seq AND o.holder <> $1
RETURNING o.seq, o.id, o.key_id, o.sealed`),
    forget: statement(`DELETE FROM ${s}.push_outbox_holders h WHERE h.lease_until < ${NOW} - ${FORGET_AFTER_MS}
  AND NOT EXISTS (SELECT 1 FROM ${s}.push_outbox o WHERE o.holder = h.holder)`),
    ack: statement(`DELETE FROM ${s}.push_outbox WHERE id = $1`),
    release: statement(`UPDATE ${s}.push_outbox SET holder = '' WHERE id = $1 AND holder = $2`),
  };
}

function checkLease(lease: PushOutboxLease): void {
  if (typeof lease?.owner !== 'string' || lease.owner === '' || hasNul(lease.owner) || !(lease.leaseMs >= 1))
    throw new TypeError('expected { owner (a non-empty string without U+0000), leaseMs >= 1 }');
}

/**
 * The push outbox on PostgreSQL (`PushOutbox` of `@a2aplane/a2a-server-express`): pass it as
 * `createPushSender({ outbox })` on every replica. Pending deliveries are rows until they end;
 * leases are per sender on the database's clock. When a replica dies its lease ends and another
 * replica's sender takes its rows over (`FOR UPDATE SKIP LOCKED`: two claimers never take the same
 * row), in enqueue order, with their idempotency keys: at least once. Entries are sealed with the
 * push config keys; keep a retired key in the keyring until the outbox holds nothing sealed with it.
 */
export function createPostgresPushOutbox(options: PostgresPushOutboxOptions): PushOutbox {
  const { pool } = options;
  if (options.pushConfigKeys === undefined) throw new TypeError('expected pushConfigKeys (a PushConfigKeyring), got undefined');
  const keyring = options.pushConfigKeys;
  const statements = outboxStatements(quoteSchema(options.schema ?? DEFAULT_SCHEMA));
  const timeoutMs = positive('statementTimeoutMs', options.statementTimeoutMs ?? 5_000);
  const run = <R extends object>(stmt: { name: string; text: string }, values: unknown[]): Promise<R[]> =>
    query<R>(pool, timeoutMs, stmt, values);
  const leaseMs = (lease: PushOutboxLease): number => Math.ceil(lease.leaseMs);

  return {
    async enqueue(entry, lease) {
      checkLease(lease);
      if (typeof entry?.id !== 'string' || entry.id === '' || hasNul(entry.id))
        throw new TypeError('expected entry.id to be a non-empty string');
      const { keyId, sealed } = await seal(keyring, JSON.stringify(entry), entryAad(entry.id));
      await run(statements.enqueue, [lease.owner, leaseMs(lease), entry.id, keyId, sealed]);
    },
    async claim(lease, limit) {
      checkLease(lease);
      const count = Math.max(0, Math.floor(limit));
      await run(statements.renew, [lease.owner, leaseMs(lease)]);
      if (count === 0) return [];
      const rows = await run<{ seq: string; id: string; key_id: string; sealed: Buffer }>(statements.claim, [lease.owner, count]);
      rows.sort((a, b) => Number(BigInt(a.seq) - BigInt(b.seq)));
      const claimed: PushOutboxEntry[] = [];
      for (const row of rows) claimed.push(JSON.parse(await open(keyring, row.key_id, row.sealed, entryAad(row.id))) as PushOutboxEntry);
      // Holders long gone that hold nothing leave the lease table (cheap: it has one row per sender).
      await run(statements.forget, []);
      return claimed;
    },
    async ack(id) {
      if (typeof id !== 'string' || hasNul(id)) return;
      await run(statements.ack, [id]);
    },
    async release(id, owner) {
      if (typeof id !== 'string' || typeof owner !== 'string' || hasNul(id, owner)) return;
      await run(statements.release, [id, owner]);
    },
  };
}
