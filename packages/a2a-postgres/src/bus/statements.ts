import { parameters, statement } from '../statement.js';
import { type Bound, WRITE_RESULT, writeCtes } from '../store/statements.js';

/**
 * The head of the log and its events, appended after a write `w` (commit) or on their own
 * (publish). The head row's lock orders concurrent appends of one task, so sequence numbers
 * commit in order; a log that had expired starts again after its last number (ids are never
 * reused) and drops what it held. Events below `first_seq` are deleted in the same statement.
 */
function appendCtes(s: string, p: (name: string) => string, after: string, revision: string): string {
  const key = `tenant = ${p('tenant')} AND task_id = ${p('taskId')}`;
  // Typed: in a SELECT list PostgreSQL cannot infer the type of a parameter in arithmetic.
  const count = `${p('count')}::bigint`;
  const max = `${p('maxEvents')}::bigint`;
  return `head AS (INSERT INTO ${s}.task_logs AS l (tenant, task_id, last_seq, first_seq, expires_at)
  SELECT ${p('tenant')}::text, ${p('taskId')}::text, ${count}, GREATEST(1, ${count} - ${max} + 1), ${p('logExpiresAt')}::bigint ${after}
  ON CONFLICT (tenant, task_id) DO UPDATE SET
    last_seq = l.last_seq + ${count},
    first_seq = CASE WHEN l.expires_at <= ${p('now')}::bigint THEN l.last_seq + 1
      ELSE GREATEST(l.first_seq, l.last_seq + ${count} - ${max} + 1) END,
    expires_at = ${p('logExpiresAt')}
  RETURNING last_seq, first_seq),
ev AS (INSERT INTO ${s}.task_events (tenant, task_id, seq, final, revision, event)
  SELECT ${p('tenant')}::text, ${p('taskId')}::text, head.last_seq - ${count} + e.ord, e.final, ${revision}, e.event
  FROM head, unnest(${p('events')}::json[], ${p('finals')}::boolean[]) WITH ORDINALITY AS e(event, final, ord)),
trimmed AS (DELETE FROM ${s}.task_events WHERE ${key} AND seq < (SELECT first_seq FROM head))`;
}

/** Appends events to a task's log: one statement (the notification follows it, see `notify`). */
function publishStatement(s: string): Bound {
  const { p, order } = parameters();
  const text = `WITH ${appendCtes(s, p, '', `${p('revision')}::integer`)}
SELECT (SELECT last_seq FROM head) AS last_seq`;
  return { ...statement(text), order };
}

/** A task write (compare-and-set) and the events it carries, in one statement: both or neither. */
export function commitStatement(s: string, create: boolean): Bound {
  const { p, order } = parameters();
  const text = `WITH ${writeCtes(s, create, p)},
${appendCtes(s, p, 'FROM w', '(SELECT revision FROM w)')}
SELECT ${WRITE_RESULT}, (SELECT last_seq FROM head) AS last_seq`;
  return { ...statement(text), order };
}

export function busStatements(s: string) {
  return {
    publish: publishStatement(s),
    /**
     * Tells every replica that a log grew, in a transaction of its own that does not wait for the
     * disk (a notification is a hint: the log, written and flushed before, is the truth). Not in
     * the write's transaction: PostgreSQL serialises committing transactions that NOTIFY under one
     * lock held through their WAL flush, which would turn every write into a disk round trip of its
     * own (no group commit).
     */
    notify: statement(`SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, $2)`),
    /** The retained events after a sequence number, with the log's head (no row: no live log). */
    read: statement(`SELECT l.last_seq, l.first_seq, e.seq, e.final, e.revision, e.event FROM ${s}.task_logs l
LEFT JOIN ${s}.task_events e ON e.tenant = l.tenant AND e.task_id = l.task_id AND e.seq > $3 AND e.seq >= l.first_seq
WHERE l.tenant = $1 AND l.task_id = $2 AND l.expires_at > $4 ORDER BY e.seq`),
    /** The newest sequence number of a live log. */
    head: statement(`SELECT last_seq FROM ${s}.task_logs WHERE tenant = $1 AND task_id = $2 AND expires_at > $3`),
    registerRunner: statement(`INSERT INTO ${s}.cancel_runners (tenant, task_id, lock_hi, lock_lo) VALUES ($1, $2, $3, $4)
ON CONFLICT (tenant, task_id) DO UPDATE SET lock_hi = EXCLUDED.lock_hi, lock_lo = EXCLUDED.lock_lo`),
    unregisterRunner: statement(`DELETE FROM ${s}.cancel_runners WHERE tenant = $1 AND task_id = $2 AND lock_hi = $3 AND lock_lo = $4`),
    unregisterReplica: statement(`DELETE FROM ${s}.cancel_runners WHERE lock_hi = $1 AND lock_lo = $2`),
    // A runner counts only while its replica's session holds the lock it registered with.
    requestCancel: statement(`WITH r AS (SELECT c.lock_hi, c.lock_lo FROM ${s}.cancel_runners c WHERE c.tenant = $1 AND c.task_id = $2
  AND EXISTS (SELECT 1 FROM pg_locks k WHERE k.locktype = 'advisory' AND k.granted AND k.objsubid = 2
    AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND k.classid = c.lock_hi::oid AND k.objid = c.lock_lo::oid)),
q AS (INSERT INTO ${s}.cancel_requests (tenant, task_id, request, created_at) SELECT $1, $2, $3, $4 FROM r RETURNING id)
SELECT pg_notify($5, r.lock_hi || '.' || r.lock_lo || ' ' || q.id) FROM r, q`),
    takeCancel: statement(`DELETE FROM ${s}.cancel_requests WHERE id = $1 RETURNING tenant, task_id, request`),
  };
}
