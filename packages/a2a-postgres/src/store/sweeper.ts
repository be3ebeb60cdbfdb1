import type { Pool } from 'pg';

export interface Sweeper {
  sweep(): Promise<number>;
  stop(): void;
}

/** Rows deleted per statement: a sweep never holds many row locks at once. */
const BATCH = 1_000;

/**
 * Deletes expired rows in batches: tasks (their push configs cascade), send keys, event logs with
 * their events, stale cancel requests, nonces, and the runner rows of dead replicas. Reads already ignore expired rows; this keeps
 * the tables from growing. Replicas sweeping at once only share the work.
 */
export function createSweeper(options: {
  pool: Pool;
  schema: string;
  now: () => number;
  intervalMs: number | false;
  onError: ((error: unknown) => void) | undefined;
}): Sweeper {
  const { pool, schema: s, now } = options;
  const batch = (table: string, where: string) =>
    `DELETE FROM ${s}.${table} WHERE ctid = ANY (ARRAY(SELECT ctid FROM ${s}.${table} WHERE ${where} LIMIT ${BATCH}))`;
  const statements = [
    batch('tasks', 'expires_at <= $1::bigint'),
    batch('send_keys', 'expires_at <= $1::bigint'),
    `WITH gone AS (DELETE FROM ${s}.task_logs WHERE ctid = ANY (ARRAY(SELECT ctid FROM ${s}.task_logs WHERE expires_at <= $1::bigint LIMIT ${BATCH}))
      RETURNING tenant, task_id)
     DELETE FROM ${s}.task_events e USING gone WHERE e.tenant = gone.tenant AND e.task_id = gone.task_id`,
    // A cancel request nobody picked up within an hour went to a replica that died.
    batch('cancel_requests', 'created_at <= $1::bigint - 3600000'),
    batch('nonces', 'expires_at <= $1::bigint'),
    // Runner rows of replicas whose session (and advisory lock) is gone; a live replica that
    // reconnects records its rows again under its new lock. A row whose task is still live stays:
    // the bus's orphan sweeper ends that task first (decision 0132).
    `DELETE FROM ${s}.cancel_runners c WHERE NOT EXISTS (SELECT 1 FROM ${s}.tasks t
      WHERE t.tenant = c.tenant AND t.task_id = c.task_id AND NOT t.terminal AND t.expires_at > $1::bigint)
      AND NOT EXISTS (SELECT 1 FROM pg_locks k
      WHERE k.locktype = 'advisory' AND k.granted AND k.objsubid = 2
      AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database())
      AND k.classid = c.lock_hi::oid AND k.objid = c.lock_lo::oid)`,
  ];
  let running: Promise<number> | undefined;
  async function sweepOnce(): Promise<number> {
    let total = 0;
    for (const text of statements) {
      for (;;) {
        const result = await pool.query(text, [now()]);
        total += result.rowCount ?? 0;
        if ((result.rowCount ?? 0) < BATCH) break;
      }
    }
    return total;
  }
  const sweep = (): Promise<number> => {
    running ??= sweepOnce().finally(() => {
      running = undefined;
    });
    return running;
  };
  const timer =
    options.intervalMs === false
      ? undefined
      : setInterval(() => {
          sweep().catch((error: unknown) => options.onError?.(error));
        }, options.intervalMs);
  timer?.unref();
  return {
    sweep,
    stop() {
      if (timer) clearInterval(timer);
    },
  };
}
