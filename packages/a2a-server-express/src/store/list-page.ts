import { cloneStored } from './clone.js';
import { decodeListPageToken as decodeToken, encodeListPageToken as encodeToken, taskStatusTime as statusTime } from './list-page-token.js';
import type { StoredTask, TaskListPage, TaskListQuery } from './task-store.js';

/**
 * ListTasks over the records of `entries` that `keep` admits: newest status first (then id), with
 * the query's filters and a page token of (time, id) that stays stable while tasks change.
 */
export function listPage<E extends { record: StoredTask }>(
  entries: Iterable<E>,
  query: TaskListQuery,
  keep: (entry: E) => boolean,
): TaskListPage | undefined {
  let cursor: { time: number; id: string } | undefined;
  if (query.pageToken) {
    cursor = decodeToken(query.pageToken);
    if (!cursor) return undefined;
  }
  const matches: { time: number; record: StoredTask }[] = [];
  for (const entry of entries) {
    if (!keep(entry)) continue;
    const { record } = entry;
    if (record.tenant !== query.tenant || record.owner !== query.owner) continue;
    if (query.contextId !== undefined && record.task.contextId !== query.contextId) continue;
    if (query.status !== undefined && record.task.status.state !== query.status) continue;
    const time = statusTime(record);
    if (query.statusTimestampAfter !== undefined && !(time > query.statusTimestampAfter)) continue;
    matches.push({ time, record });
  }
  matches.sort((a, b) => b.time - a.time || (a.record.task.id < b.record.task.id ? -1 : a.record.task.id > b.record.task.id ? 1 : 0));
  const after = cursor ? matches.filter((m) => m.time < cursor.time || (m.time === cursor.time && m.record.task.id > cursor.id)) : matches;
  const page = after.slice(0, query.pageSize);
  const last = page.at(-1);
  const nextPageToken = after.length > page.length && last ? encodeToken(last.time, last.record.task.id) : '';
  return { records: page.map((m) => cloneStored(m.record)), nextPageToken, totalSize: matches.length };
}
