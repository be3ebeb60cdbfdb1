import {
  EventQueue,
  type TaskCancelHandler,
  type TaskCancelRequest,
  type TaskCommit,
  type TaskCommitEvent,
  type TaskEventBus,
  type TaskEventInput,
  type TaskEventRecord,
  type TaskKey,
  type TaskRecord,
  type TaskStore,
  type TaskSubscribeOptions,
  type TaskSubscription,
  type TaskWriteOptions,
  type ShareLimit,
} from '@a2aplane/a2a-server-express';
import { InvalidParamsError } from '@a2aplane/a2a-types';
import type { Pool } from 'pg';
import { DEFAULT_SCHEMA, hasNul, positive, query, quoteSchema } from '../sql.js';
import { bind } from '../statement.js';
import { storeWriter } from '../store/postgres-task-store.js';
import type { Bound } from '../store/statements.js';

/** What a commit statement returns: the write's result and the log's new head. */
type CommitRow = { revision: number | null; current: number | null; refused: ShareLimit | null; last_seq: string | null };
import { CancelRouting } from './cancel-routing.js';
import { Listener } from './listener.js';
import { orphanStatements, type PostgresOrphanRecoveryOptions, startOrphanSweeper } from './orphan-sweeper.js';
import { LiveWatches, type Subscriber, topicOf } from './live-watches.js';
import { hasGap, ID, type LogRead, readHead, readLog, toRecord } from './log-reader.js';
import { busStatements, commitStatement } from './statements.js';

export interface PostgresTaskEventBusOptions {
  /**
   * A `pg.Pool` on the database. The bus keeps one of its connections for itself (LISTEN and the
   * replica's advisory lock), so size the pool one above what requests need.
   */
  pool: Pool;
  /** The schema `migrate()` created; the replicas of one agent (and the task store) use the same. Default `a2a`. */
  schema?: string;
  /** Most events kept per task for replay; older ones are dropped (a resume before them gets `gap`). Default 1 000. */
  maxEventsPerTask?: number;
  /** How long a task's log is kept after a final event. Default 10 minutes. */
  retentionMs?: number;
  /** How long a log whose last event was not final is kept (its replica may have died). Default 24 hours. */
  liveTtlMs?: number;
  /** Events buffered per subscriber before it fails with `SlowConsumerError`. Default 512. */
  subscriberBufferSize?: number;
  /** Deadline of one statement; past it the call fails with `PostgresUnavailableError` (503). Default 5 000 ms. */
  statementTimeoutMs?: number;
  /** How long the listening connection may be down before its subscribers end with `PostgresUnavailableError` (they resume with `Last-Event-ID`). Default 10 000 ms. */
  subscriberGiveUpMs?: number;
  /** Errors of the bus's own connection and background reads (reconnects are automatic). */
  onError?: (error: unknown) => void;
  /**
   * Ending the tasks of replicas that died while running them: FAILED with `REPLICA_LOST`
   * (decision 0132). On by default; `false` turns it off on this replica (it sweeps nothing).
   */
  orphanRecovery?: PostgresOrphanRecoveryOptions | false;
  /** Clock, for tests. */
  now?: () => number;
}

export interface PostgresTaskEventBus extends TaskEventBus {
  readonly schema: string;
}

/** PostgreSQL text cannot hold U+0000: such a key names nothing this bus can hold. */
const checkKey = (key: TaskKey): void => {
  if (hasNul(key.tenant, key.taskId)) throw new InvalidParamsError({ message: 'A task key must not contain U+0000' });
};

const parseId = (id: string | undefined): number | undefined => (id === undefined ? 0 : ID.test(id) ? Number(id) : undefined);

/**
 * A subscription: registered with the live watches first, then the replay read and queued, then
 * live (a notification that came during the replay triggers a read once it is queued).
 */
async function openSubscription(input: {
  key: TaskKey;
  after: number;
  options: TaskSubscribeOptions;
  watches: LiveWatches;
  bufferSize: number;
  load: () => Promise<LogRead>;
  closed: () => boolean;
}): Promise<TaskSubscription> {
  const { key, after, watches } = input;
  const { afterId, signal } = input.options;
  const onAbort = (): void => queue.end();
  const queue: EventQueue<TaskEventRecord> = new EventQueue<TaskEventRecord>(input.bufferSize, () => {
    watches.remove(key, subscriber);
    signal?.removeEventListener('abort', onAbort);
  });
  const subscriber: Subscriber = { queue, cursor: after, ready: false };
  const notifiedBefore = watches.add(key, subscriber);
  let log: LogRead;
  try {
    log = await input.load();
  } catch (error) {
    queue.end();
    throw error;
  }
  const startId = afterId ?? (log.lastSeq > 0 ? String(log.lastSeq) : undefined);
  subscriber.cursor = afterId === undefined ? log.lastSeq : after;
  const replay = afterId === undefined ? [] : log.events;
  let ended = false;
  for (const record of replay) {
    queue.push(toRecord(record));
    subscriber.cursor = record.seq;
    if (record.final && record.seq === log.lastSeq) ended = true;
  }
  if (input.closed() || signal?.aborted === true || ended) queue.end();
  else {
    signal?.addEventListener('abort', onAbort, { once: true });
    watches.activate(key, subscriber, notifiedBefore);
  }
  return {
    startId,
    gap: afterId !== undefined && hasGap(log, after),
    close: () => queue.end(),
    [Symbol.asyncIterator]: () => queue[Symbol.asyncIterator](),
  };
}

/**
 * Creates the `TaskEventBus` on PostgreSQL. Each task's events are rows of its log with a sequence
 * number per task, which is the SSE event id: `Last-Event-ID` resumes on any replica, after any
 * replica or PostgreSQL restarts (an event is acknowledged only once committed). Live delivery is
 * LISTEN/NOTIFY: an append notifies every replica, which reads the log after its subscribers'
 * cursors, so nothing polls. Cancel requests reach the replica running the task (decision 0075).
 */
export function createPostgresTaskEventBus(options: PostgresTaskEventBusOptions): PostgresTaskEventBus {
  const { pool } = options;
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const s = quoteSchema(schema);
  const maxEvents = positive('maxEventsPerTask', options.maxEventsPerTask ?? 1_000);
  const retentionMs = positive('retentionMs', options.retentionMs ?? 10 * 60_000);
  const liveTtlMs = positive('liveTtlMs', options.liveTtlMs ?? 24 * 60 * 60_000);
  const bufferSize = positive('subscriberBufferSize', options.subscriberBufferSize ?? 512);
  const timeoutMs = positive('statementTimeoutMs', options.statementTimeoutMs ?? 5_000);
  const giveUpMs = positive('subscriberGiveUpMs', options.subscriberGiveUpMs ?? 10_000);
  const onError = options.onError ?? (() => {});
  const now = options.now ?? Date.now;
  const statements = busStatements(s);
  const eventsChannel = `a2a_events_${schema}`;
  const cancelChannel = `a2a_cancel_${schema}`;
  let closed = false;

  const read = (key: TaskKey, afterSeq: number): Promise<LogRead> => readLog(pool, timeoutMs, statements.read, key, afterSeq, now());
  const watches = new LiveWatches({ read, onReadError: onError });
  const listener: Listener = new Listener({
    pool,
    channels: [eventsChannel, cancelChannel],
    giveUpMs,
    onError,
    onNotification(channel, payload) {
      if (channel === eventsChannel) watches.notified(payload);
      else if (channel === cancelChannel) cancels.notified(payload);
    },
    onConnected(lock, reconnected) {
      cancels.connected(lock);
      orphans?.connected();
      if (reconnected) watches.catchUp();
    },
    onGiveUp: (error) => watches.failAll(error),
  });
  const cancels = new CancelRouting({ pool, listener, channel: cancelChannel, timeoutMs, statements, onError });
  const orphans = startOrphanSweeper(options.orphanRecovery, { pool, listener, timeoutMs, statements: orphanStatements(s), onError });

  /** The values of an append of `events` (input order) to `key`'s log. */
  function appendValues(key: TaskKey, events: readonly TaskCommitEvent[]) {
    return {
      tenant: key.tenant,
      taskId: key.taskId,
      count: events.length,
      maxEvents,
      logExpiresAt: now() + (events.at(-1)?.final ? retentionMs : liveTtlMs),
      now: now(),
      events: events.map((e) => JSON.stringify(e.event)),
      finals: events.map((e) => e.final),
    };
  }

  /**
   * Tells every replica that `key`'s log reached `lastSeq`. A failure is reported, not thrown: the
   * events are committed; subscribers elsewhere read them on the next notification of the task or
   * when their listening connection comes back.
   */
  async function notify(key: TaskKey, lastSeq: string): Promise<void> {
    try {
      await query(pool, timeoutMs, statements.notify, [eventsChannel, `${topicOf(key)} ${lastSeq}`]);
    } catch (error) {
      onError(error);
    }
  }

  const commits = new Map<boolean, Bound>();
  function commitFor(store: TaskStore): TaskCommit | undefined {
    const writer = storeWriter(store);
    // Only a store on this very pool and schema is written in the bus's statement.
    if (writer === undefined || writer.pool !== pool || writer.schema !== s) return undefined;
    return async (record: TaskRecord, writeOptions: TaskWriteOptions, events: readonly TaskCommitEvent[]) => {
      const prepared = writer.prepareWrite(record, writeOptions);
      if (events.length === 0) {
        return { revision: await store.upsert(record, writeOptions), ids: [] };
      }
      let stmt = commits.get(prepared.create);
      if (stmt === undefined) {
        stmt = commitStatement(s, prepared.create);
        commits.set(prepared.create, stmt);
      }
      const key = { tenant: record.tenant, taskId: record.task.id };
      const values = { ...appendValues(key, events), ...prepared.values };
      const [row] = await query<CommitRow>(pool, timeoutMs, stmt, bind(stmt.order, values));
      const revision = prepared.revision(row);
      await notify(key, String(row?.last_seq));
      const last = Number(row?.last_seq);
      return { revision, ids: events.map((_, i) => String(last - events.length + 1 + i)) };
    };
  }

  return {
    schema,

    async publish(key, input: TaskEventInput) {
      checkKey(key);
      const values = { ...appendValues(key, [input]), revision: input.revision };
      const [row] = await query<{ last_seq: string }>(pool, timeoutMs, statements.publish, bind(statements.publish.order, values));
      await notify(key, String(row?.last_seq));
      return String(row?.last_seq);
    },

    async read(key, afterId) {
      const after = parseId(afterId);
      if (after === undefined) return undefined;
      if (hasNul(key.tenant, key.taskId)) return { events: [], lastId: undefined, gap: afterId !== undefined };
      const log = await read(key, after);
      return {
        events: log.events.map(toRecord),
        lastId: log.lastSeq > 0 ? String(log.lastSeq) : undefined,
        gap: afterId !== undefined && hasGap(log, after),
      };
    },

    async subscribe(key, subscribeOptions: TaskSubscribeOptions = {}) {
      const after = parseId(subscribeOptions.afterId);
      if (after === undefined) return undefined;
      checkKey(key);
      // Listening before the replay is read: an event committed after the read is notified.
      await listener.ready(timeoutMs);
      const load = (): Promise<LogRead> =>
        subscribeOptions.afterId === undefined ? readHead(pool, timeoutMs, statements.head, key, now()) : read(key, after);
      return openSubscription({ key, after, options: subscribeOptions, watches, bufferSize, load, closed: () => closed });
    },

    requestCancel(key, request: TaskCancelRequest) {
      return cancels.request(key, request, now());
    },

    onCancel(key, handler: TaskCancelHandler) {
      if (closed) return () => {};
      return cancels.add(key, handler);
    },

    committerFor: commitFor,

    onOrphanedTask: (handler) => orphans?.attach(handler) ?? (() => {}),

    async close() {
      if (closed) return;
      closed = true;
      orphans?.close();
      watches.endAll();
      await cancels.close();
      listener.close();
    },
  };
}
