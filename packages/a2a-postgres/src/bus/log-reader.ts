import type { TaskEventRecord, TaskKey } from '@a2aplane/a2a-server-express';
import type { StreamResponse } from '@a2aplane/a2a-types';
import type { Pool } from 'pg';
import { query } from '../sql.js';
import type { Statement } from '../statement.js';

/** What a read of a task's log found: its retained events after a sequence number, and its head. */
export interface LogRead {
  /** `false`: no live log (never written, expired or swept). */
  exists: boolean;
  events: (TaskEventRecord & { seq: number })[];
  lastSeq: number;
  firstSeq: number;
}

interface Row {
  last_seq: string;
  first_seq: string;
  seq: string | null;
  final: boolean | null;
  revision: number | null;
  event: StreamResponse | null;
}

/** Event ids are the decimal sequence number of the event in its task's log. */
export const ID = /^[1-9]\d{0,14}$/;

export async function readLog(
  pool: Pool,
  timeoutMs: number,
  stmt: Statement,
  key: TaskKey,
  afterSeq: number,
  now: number,
): Promise<LogRead> {
  const rows = await query<Row>(pool, timeoutMs, stmt, [key.tenant, key.taskId, afterSeq, now]);
  const head = rows[0];
  if (head === undefined) return { exists: false, events: [], lastSeq: 0, firstSeq: 1 };
  const events: LogRead['events'] = [];
  for (const row of rows) {
    if (row.seq === null || row.event === null) continue;
    const seq = Number(row.seq);
    events.push({ seq, id: String(seq), event: row.event, final: row.final === true, revision: row.revision ?? 0 });
  }
  return { exists: true, events, lastSeq: Number(head.last_seq), firstSeq: Number(head.first_seq) };
}

/** Only the head of a live log (a subscription without `afterId` replays nothing). */
export async function readHead(pool: Pool, timeoutMs: number, stmt: Statement, key: TaskKey, now: number): Promise<LogRead> {
  const [row] = await query<{ last_seq: string }>(pool, timeoutMs, stmt, [key.tenant, key.taskId, now]);
  return { exists: row !== undefined, events: [], lastSeq: Number(row?.last_seq ?? 0), firstSeq: 1 };
}

/** Events after `afterSeq` were dropped before this read (trimmed to the cap, or the log expired). */
export const hasGap = (log: LogRead, afterSeq: number): boolean => (log.exists ? afterSeq < log.firstSeq - 1 : afterSeq > 0);

/** The record as handed out (without the internal sequence number). */
export const toRecord = ({ id, event, final, revision }: TaskEventRecord): TaskEventRecord => ({ id, event, final, revision });
