import type { TaskEventLog, TaskEventRecord, TaskKey } from '@a2aplane/a2a-server-express';
import type { StreamResponse } from '@a2aplane/a2a-types';
import type { RedisClientLike } from '../connection.js';
import type { RedisKeys } from '../keys.js';
import { READ } from './scripts.js';
import { compareStreamIds } from './stream-id.js';

/** Fields of a stream entry -> the record; `undefined` for an entry this bus did not write. */
export function toRecord(id: string, fields: Record<string, string>): TaskEventRecord | undefined {
  const raw = fields.e;
  if (raw === undefined) return undefined;
  return { id, event: JSON.parse(raw) as StreamResponse, final: fields.f === '1', revision: Number(fields.r ?? 0) };
}

/** A stream entry's flat `[field, value, ...]` list as an object. */
export function flatToFields(flat: string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i] as string] = flat[i + 1] as string;
  return fields;
}

/** READ's reply: whether the log exists, its newest id, the id it was trimmed up to, the entries after `afterId`. */
type ReadReply = [number, string, string, [string, string[]][]];

/** What reading a task's log needs: the connection, the keys, and one round trip with the bus's deadline. */
export interface EventLogDeps {
  client: RedisClientLike;
  keys: RedisKeys;
  run: <T>(fn: () => Promise<T>) => Promise<T>;
}

/**
 * The task's events after `afterId` (all of them without it), its newest id, and whether events
 * after `afterId` are gone (the log expired or was trimmed past it).
 */
export async function readEventLog(deps: EventLogDeps, key: TaskKey, afterId: string | undefined): Promise<TaskEventLog> {
  const { client, keys, run } = deps;
  const reply = await run(() => READ.run(client, [keys.events(key.tenant, key.taskId)], [afterId ?? '']));
  const [exists, last, deleted, entries] = reply as ReadReply;
  const events: TaskEventRecord[] = [];
  for (const [id, flat] of entries) {
    const record = toRecord(id, flatToFields(flat));
    if (record) events.push(record);
  }
  // No log but an id to resume from: the events after it left with the log (expired or deleted).
  const gap = afterId !== undefined && (exists === 0 || (deleted !== '' && compareStreamIds(afterId, deleted) < 0));
  return { events, lastId: last === '' ? undefined : last, gap };
}
