import { performance } from 'node:perf_hooks';
import { type OrphanedTaskHandler, ReplicaLostError, type TaskKey } from '@a2aplane/a2a-server-express';
import type { Pool } from 'pg';
import { query } from '../sql.js';
import { statement } from '../statement.js';
import type { Listener, ReplicaLock } from './listener.js';

/** Orphaned-task recovery of the PostgreSQL bus (decision 0132; decision 0032 on Redis). */
export interface PostgresOrphanRecoveryOptions {
  /**
   * How long a runner row's replica must stay without its session (its advisory lock not held)
   * before its task ends FAILED (`REPLICA_LOST`), and how long this replica's own session must have
   * been up before it judges others. A replica whose connection drops and comes back within it
   * keeps its tasks. Default 10 000 ms.
   */
  graceMs?: number;
  /** How often this replica looks for tasks of replicas whose session is gone. Default 5 000 ms. */
  sweepMs?: number;
  /** Told of each task this replica ended because the replica running it was lost (for logs, metrics). */
  onOrphanedTask?: (info: { key: TaskKey }) => void;
}

/** Rows looked at per sweep (the rest wait for the next one). */
const BATCH = 100;

/** The held-lock test of a runner row `c` (the replica's listening session is alive). */
const LOCK_HELD = `EXISTS (SELECT 1 FROM pg_locks k WHERE k.locktype = 'advisory' AND k.granted AND k.objsubid = 2
    AND k.database = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND k.classid = c.lock_hi::oid AND k.objid = c.lock_lo::oid)`;

export function orphanStatements(s: string) {
  return {
    // Runner rows of other sessions whose lock nobody holds.
    orphans: statement(`SELECT c.tenant, c.task_id, c.lock_hi, c.lock_lo FROM ${s}.cancel_runners c
WHERE NOT (c.lock_hi = $1 AND c.lock_lo = $2) AND NOT ${LOCK_HELD} LIMIT ${BATCH}`),
    // Moves the row to this session only while it still names the dead one and its lock is still free: one sweeper wins.
    claim: statement(`UPDATE ${s}.cancel_runners c SET lock_hi = $5, lock_lo = $6
WHERE c.tenant = $1 AND c.task_id = $2 AND c.lock_hi = $3 AND c.lock_lo = $4 AND NOT ${LOCK_HELD} RETURNING 1`),
    giveBack: statement(`UPDATE ${s}.cancel_runners SET lock_hi = $5, lock_lo = $6
WHERE tenant = $1 AND task_id = $2 AND lock_hi = $3 AND lock_lo = $4`),
    done: statement(`DELETE FROM ${s}.cancel_runners WHERE tenant = $1 AND task_id = $2 AND lock_hi = $3 AND lock_lo = $4`),
  };
}

interface OrphanSweeperDeps {
  pool: Pool;
  listener: Listener;
  timeoutMs: number;
  statements: ReturnType<typeof orphanStatements>;
  options: PostgresOrphanRecoveryOptions;
  onError: (error: unknown) => void;
}

/** The bus's sweeper, started, or none when recovery is turned off (`false`). */
export function startOrphanSweeper(
  options: PostgresOrphanRecoveryOptions | false | undefined,
  deps: Omit<OrphanSweeperDeps, 'options'>,
): OrphanSweeper | undefined {
  if (options === false) return undefined;
  const sweeper = new OrphanSweeper({ ...deps, options: options ?? {} });
  sweeper.start();
  return sweeper;
}

interface Row {
  tenant: string;
  task_id: string;
  lock_hi: number;
  lock_lo: number;
}

const rowKey = (row: Row): string => `${row.tenant}\u0000${row.task_id}\u0000${row.lock_hi}.${row.lock_lo}`;

/**
 * Ends the tasks of replicas that died while running them. A replica's liveness is its listening
 * session's advisory lock (the cancel routing's runner rows name it): a SIGKILLed replica's
 * session ends and PostgreSQL frees the lock at once. A row seen without its lock for `graceMs`
 * (the same lock all along: a replica that reconnected has moved its rows to its new lock) is
 * claimed by moving it to this session's lock (exactly one sweeper wins; if this one dies in turn,
 * its lock goes too and another takes over), its task is ended by the server's handler through
 * the task's compare-and-set, then the row goes. Runs only while a server is attached and this
 * replica's own session has been up for `graceMs` (after an outage, nobody judges at once).
 */
class OrphanSweeper {
  handler: OrphanedTaskHandler | undefined;
  private readonly graceMs: number;
  private readonly sweepMs: number;
  /** Rows seen orphaned, with when they were first seen (performance.now()). */
  private readonly seen = new Map<string, number>();
  private upSince: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<number> | undefined;

  constructor(private readonly deps: OrphanSweeperDeps) {
    this.graceMs = checkMs('graceMs', deps.options.graceMs ?? 10_000, 100);
    this.sweepMs = checkMs('sweepMs', deps.options.sweepMs ?? 5_000, 10);
  }

  start(): void {
    this.timer = setInterval(() => {
      if (this.handler === undefined) return;
      // Sweeping needs this replica's own session (its lock is who claims).
      if (!this.deps.listener.up) this.deps.listener.ready(this.deps.timeoutMs).catch(() => undefined);
      else void this.sweep().catch(this.deps.onError);
    }, this.sweepMs);
    this.timer.unref();
  }

  /** Sweeps for `handler` (the server's) until the returned function detaches it. */
  attach(handler: OrphanedTaskHandler): () => void {
    this.handler = handler;
    return () => {
      if (this.handler === handler) this.handler = undefined;
    };
  }

  /** This replica's session is (re)connected: its grace starts again. */
  connected(): void {
    this.upSince = performance.now();
    this.seen.clear();
  }

  close(): void {
    clearInterval(this.timer);
    this.handler = undefined;
  }

  /** One sweep (one at a time); resolves how many tasks this replica ended. */
  sweep(): Promise<number> {
    this.sweeping ??= this.sweepOnce().finally(() => {
      this.sweeping = undefined;
    });
    return this.sweeping;
  }

  private async sweepOnce(): Promise<number> {
    const lock = this.deps.listener.lock;
    if (lock === undefined || this.upSince === undefined || performance.now() - this.upSince < this.graceMs) return 0;
    const rows = await query<Row>(this.deps.pool, this.deps.timeoutMs, this.deps.statements.orphans, [lock.hi, lock.lo]);
    const at = performance.now();
    const current = new Set(rows.map(rowKey));
    for (const key of this.seen.keys()) if (!current.has(key)) this.seen.delete(key);
    let ended = 0;
    for (const row of rows) {
      const key = rowKey(row);
      const since = this.seen.get(key);
      if (since === undefined) this.seen.set(key, at);
      else if (at - since >= this.graceMs && (await this.recover(row, lock))) ended += 1;
    }
    return ended;
  }

  /** Claims and ends one orphaned task; resolves whether this replica wrote its failure. */
  private async recover(row: Row, lock: ReplicaLock): Promise<boolean> {
    const { pool, timeoutMs, statements } = this.deps;
    const handler = this.handler;
    if (handler === undefined) return false;
    this.seen.delete(rowKey(row));
    const claimed = await query(pool, timeoutMs, statements.claim, [row.tenant, row.task_id, row.lock_hi, row.lock_lo, lock.hi, lock.lo]);
    if (claimed.length === 0) return false;
    const key = { tenant: row.tenant, taskId: row.task_id };
    let wrote: boolean;
    try {
      wrote = await handler(key, new ReplicaLostError());
    } catch (error) {
      // The store or bus failed: the row goes back to the dead lock, and a later sweep tries again.
      this.deps.onError(error);
      await query(pool, timeoutMs, statements.giveBack, [row.tenant, row.task_id, lock.hi, lock.lo, row.lock_hi, row.lock_lo]).catch(
        () => [],
      );
      return false;
    }
    await query(pool, timeoutMs, statements.done, [row.tenant, row.task_id, lock.hi, lock.lo]);
    if (wrote) {
      try {
        this.deps.options.onOrphanedTask?.({ key });
      } catch (error) {
        this.deps.onError(error);
      }
    }
    return wrote;
  }
}

function checkMs(name: string, value: number, min: number): number {
  if (!(Number.isSafeInteger(value) && value >= min)) throw new RangeError(`expected ${name} to be an integer >= ${min}, got ${value}`);
  return value;
}
