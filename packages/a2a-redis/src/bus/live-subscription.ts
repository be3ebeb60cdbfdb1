import {
  EventQueue,
  type TaskEventRecord,
  type TaskKey,
  type TaskSubscribeOptions,
  type TaskSubscription,
} from '@a2aplane/a2a-server-express';
import { type EventLogDeps, readEventLog, toRecord } from './event-log.js';
import { STREAM_START } from './stream-id.js';
import type { StreamEntry, StreamReader } from './stream-reader.js';

interface SubscriptionDeps extends EventLogDeps {
  reader: StreamReader;
  bufferSize: number;
  /** The bus's open subscriptions, ended when it closes. */
  queues: Set<EventQueue<TaskEventRecord>>;
  closed: () => boolean;
}

/**
 * A subscription to a task's events: the replay after `afterId` (an XRANGE), then live delivery
 * through the shared reader from the last id replayed, so nothing is lost or repeated between
 * the two. It ends after a final event, when `signal` aborts or the bus closes.
 */
export async function subscribeToTask(
  deps: SubscriptionDeps,
  key: TaskKey,
  options: TaskSubscribeOptions,
  afterId: string | undefined,
): Promise<TaskSubscription> {
  const { signal } = options;
  const { queues } = deps;
  const log = await readEventLog(deps, key, afterId);
  const replay = afterId === undefined ? [] : log.events;
  const startId = afterId ?? log.lastId;
  // Live delivery continues right after what was replayed (or after the newest event when only live is asked for).
  const cursor = replay.at(-1)?.id ?? afterId ?? log.lastId ?? STREAM_START;
  let unwatch: (() => void) | undefined;
  const onAbort = (): void => queue.end();
  const queue: EventQueue<TaskEventRecord> = new EventQueue<TaskEventRecord>(deps.bufferSize, () => {
    unwatch?.();
    signal?.removeEventListener('abort', onAbort);
    queues.delete(queue);
  });
  for (const record of replay) queue.push(record);
  if (deps.closed() || signal?.aborted === true || replay.at(-1)?.final === true) {
    queue.end();
  } else {
    queues.add(queue);
    unwatch = deps.reader.watch(deps.keys.events(key.tenant, key.taskId), cursor, {
      onEntries(entries: StreamEntry[]) {
        for (const entry of entries) {
          const record = toRecord(entry.id, entry.fields);
          if (!record) continue;
          queue.push(record);
          if (record.final) {
            queue.end();
            return;
          }
        }
      },
      onError(error) {
        queue.fail(error);
      },
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  }
  return {
    startId,
    gap: log.gap,
    close: () => queue.end(),
    [Symbol.asyncIterator]: () => queue[Symbol.asyncIterator](),
  };
}
