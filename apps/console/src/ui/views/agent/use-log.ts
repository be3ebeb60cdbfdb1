import { useEffect, useState } from 'preact/hooks';
import type { Exchange } from '../../lib/exchange-log.js';
import { runtime } from '../../lib/runtime.js';

/** The raw log's entries, re-rendering on every change. */
export function useLog(): readonly Exchange[] {
  const [entries, setEntries] = useState(runtime.log.entries());
  useEffect(() => runtime.log.subscribe(() => setEntries(runtime.log.entries())), []);
  return entries;
}

/** The resume cursor of a task: the last SSE event id of the latest stream that carried it. */
export function cursorOf(entries: readonly Exchange[], taskId: string | undefined): string | undefined {
  if (!taskId) return undefined;
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i] as Exchange;
    if (entry.lastEventId !== undefined && entry.responseBody?.includes(taskId)) return entry.lastEventId;
  }
  return undefined;
}
