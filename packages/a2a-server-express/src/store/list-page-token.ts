import { base64urlToBytes, bytesToBase64url, utf8Decode, utf8Encode } from '../encoding/base64url.js';
import type { TaskRecord } from './task-store.js';

/** The time ListTasks orders and filters a task by: its status timestamp, else its last write. */
export function taskStatusTime(record: TaskRecord): number {
  const ts = record.task.status.timestamp;
  const parsed = ts === undefined ? Number.NaN : Date.parse(ts);
  return Number.isNaN(parsed) ? record.updatedAt : parsed;
}

/** A ListTasks page token: the (status time, task id) of the last task of the page, one format on every store. */
export function encodeListPageToken(time: number, id: string): string {
  return bytesToBase64url(utf8Encode(JSON.stringify([time, id])));
}

/** The cursor of a page token, or `undefined` for a token no store of ours issued. */
export function decodeListPageToken(token: string): { time: number; id: string } | undefined {
  try {
    const bytes = base64urlToBytes(token);
    if (bytes === undefined) return undefined;
    const value: unknown = JSON.parse(utf8Decode(bytes));
    if (Array.isArray(value) && Number.isSafeInteger(value[0]) && typeof value[1] === 'string') {
      return { time: value[0], id: value[1] };
    }
  } catch {
    // fall through: not a token we issued
  }
  return undefined;
}
