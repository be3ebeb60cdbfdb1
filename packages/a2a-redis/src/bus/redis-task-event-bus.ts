import {
  EventQueue,
  type TaskCancelHandler,
  type TaskCancelRequest,
  type TaskCommit,
  type TaskCommitEvent,
  type TaskEventBus,
  type TaskEventInput,
  type TaskEventLog,
  type TaskEventRecord,
  type TaskKey,
  type TaskRecord,
  type TaskStore,
  type TaskSubscribeOptions,
  type TaskSubscription,
  type TaskWriteOptions,
} from '@a2aplane/a2a-server-express';
import type { StreamResponse } from '@a2aplane/a2a-types';
import { guardClient, type RedisClientLike, withDeadline } from '../connection.js';
import { createKeys, type RedisKeys } from '../keys.js';
import { CancelRegistrations } from './cancel-registrations.js';
import { OrphanSweeper } from './orphan-sweeper.js';
import { type OrphanRecoveryOptions, ReplicaLease } from './replica-lease.js';
import { storeWriter } from '../store/redis-task-store.js';
import { COMMIT, PUBLISH, READ } from './scripts.js';
import { compareStreamIds, isStreamId, STREAM_START } from './stream-id.js';
import { type StreamEntry, StreamReader } from './stream-reader.js';

export interface RedisTaskEventBusOptions {
  /**
   * A connected node-redis client for commands. The bus duplicates it twice, lazily: one
   * connection blocks in XREAD for every subscription of this replica, one holds the cancel
   * subscriptions of the tasks this replica runs.
   */
  client: RedisClientLike;
  /** Starts every key of this deployment; the replicas of one agent share it (and the task store may use the same). */
  keyPrefix: string;
  /** Most events kept per task for replay; older ones are dropped (a resume before them gets `gap`). Default 1 000. */
  maxEventsPerTask?: number;
  /** How long a task's log is kept after a final event. Default 10 minutes. */
  retentionMs?: number;
  /** How long a log whose last event was not final is kept (its replica may have died). Default 24 hours. */
  liveTtlMs?: number;
  /** Events buffered per subscriber before it fails with `SlowConsumerError`. Default 512. */
  subscriberBufferSize?: number;
  /** Deadline of one publish or read; past it the call fails with `RedisUnavailableError` (503). Default 2 000 ms. */
  commandTimeoutMs?: number;
  /** How long the live reader may fail before its subscribers end with `RedisUnavailableError` (they resume with `Last-Event-ID`). Default 5 000 ms. */
  subscriberGiveUpMs?: number;
  /** Connection errors of the bus's own connections (reconnects are automatic). */
  onError?: (error: unknown) => void;
  /**
   * Orphaned-task recovery (decision 0032), on by default: this replica keeps a liveness lease in
   * Redis and records the tasks whose executor it runs; every replica sweeps for tasks of replicas
   * whose lease expired and ends them FAILED with `REPLICA_LOST` (never runs them again). Defaults:
   * lease 10 s, heartbeat every third of it, sweep every 5 s. `false` turns it off on this
   * replica: its tasks are then not recorded (a crash leaves them as they were) and it sweeps nothing.
   */
  orphanRecovery?: OrphanRecoveryOptions | false;
}

/** The Redis `TaskEventBus`, with the key names it uses. */
export interface RedisTaskEventBus extends TaskEventBus {
  readonly keys: RedisKeys;
  /** This replica's id in the liveness registry (`undefined` when `orphanRecovery` is off). */
  readonly replicaId: string | undefined;
}

const positive = (name: string, value: number): number => {
  if (!(Number.isSafeInteger(value) && value >= 1)) throw new RangeError(`expected ${name} >= 1 (an integer), got ${value}`);
  return value;
};

/** Fields of a stream entry -> the record; `undefined` for an entry this bus did not write. */
function toRecord(id: string, fields: Record<string, string>): TaskEventRecord | undefined {
  const raw = fields.e;
  if (raw === undefined) return undefined;
  return { id, event: JSON.parse(raw) as StreamResponse, final: fields.f === '1', revision: Number(fields.r ?? 0) };
}

function flatToFields(flat: string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i] as string] = flat[i + 1] as string;
  return fields;
}

/**
 * Creates the `TaskEventBus` on Redis Streams. Every event of a task is an entry of the task's
 * stream, and the entry id (`1700000000000-0`) is the SSE event id, so `Last-Event-ID` resumes
 * on any replica: the replay is an XRANGE after that id, and live delivery continues from the
 * last id replayed, so nothing is lost or repeated between the two. One XREAD BLOCK connection
 * per bus (per replica) serves all its subscriptions. Cancel requests travel on a pub/sub channel
 * per task that only the replica running the task listens on, so PUBLISH's receiver count tells
 * `requestCancel` whether a runner got it.
 */
export function createRedisTaskEventBus(options: RedisTaskEventBusOptions): RedisTaskEventBus {
  const { client } = options;
  guardClient(client);
  const keys = createKeys(options.keyPrefix);
  const maxEvents = positive('maxEventsPerTask', options.maxEventsPerTask ?? 1_000);
  const retentionMs = positive('retentionMs', options.retentionMs ?? 10 * 60_000);
  const liveTtlMs = positive('liveTtlMs', options.liveTtlMs ?? 24 * 60 * 60_000);
  const bufferSize = positive('subscriberBufferSize', options.subscriberBufferSize ?? 512);
  const timeoutMs = positive('commandTimeoutMs', options.commandTimeoutMs ?? 2_000);
  const onError = options.onError ?? (() => {});
  const run = <T>(fn: () => Promise<T>): Promise<T> => withDeadline(timeoutMs, fn);
  const reader = new StreamReader({ client, giveUpAfterMs: options.subscriberGiveUpMs ?? 5_000, onError });
  const queues = new Set<EventQueue<TaskEventRecord>>();
  const recovery = options.orphanRecovery ?? {};
  const lease = recovery === false ? undefined : new ReplicaLease(recovery, { client, keys, run, runnerTtlMs: liveTtlMs, onError });
  const sweeper =
    recovery === false || lease === undefined
      ? undefined
      : new OrphanSweeper({
          client,
          keys,
          run,
          lease,
          sweepMs: positive('sweepMs', recovery.sweepMs ?? 5_000),
          claimMs: Math.max(lease.leaseMs, 4 * timeoutMs),
          onOrphanedTask: recovery.onOrphanedTask ?? (() => {}),
          onError,
        });
  lease?.start();
  sweeper?.start();
  const registrations = new CancelRegistrations({ keys, lease, pubsub: () => pubsub(), onError });
  let subscriberClient: RedisClientLike | undefined;
  let subscriber: Promise<RedisClientLike> | undefined;
  let closed = false;

  /** The pub/sub connection, connected on first use. */
  function pubsub(): Promise<RedisClientLike> {
    subscriber ??= (async () => {
      const sub = client.duplicate();
      subscriberClient = sub;
      sub.on('error', onError);
      await sub.connect();
      return sub;
    })();
    return subscriber;
  }

  /** The atomic write-and-append of decision 0039 through `store`'s own UPSERT code. */
  function commitFor(store: TaskStore): TaskCommit | undefined {
    const writer = storeWriter(store);
    // Another client may be another Redis: only a store on this very connection is written here.
    if (writer === undefined || writer.client !== client) return undefined;
    return async (record: TaskRecord, writeOptions: TaskWriteOptions, events: readonly TaskCommitEvent[]) => {
      const prepared = writer.prepareUpsert(record, writeOptions);
      const { tenant } = record;
      const taskId = record.task.id;
      const running = !prepared.terminal;
      // The task's cancel registration, if nothing of it was sent yet: an ending write drops it, a running one records it.
      const registration = registrations.take(tenant, taskId, running);
      const scriptKeys = prepared.keys;
      scriptKeys.push(keys.events(tenant, taskId));
      const args = prepared.args;
      args.push(String(maxEvents), String(liveTtlMs), String(retentionMs), String(events.length));
      for (const event of events) args.push(JSON.stringify(event.event), event.final ? '1' : '0');
      const carried = registration !== undefined && running && lease !== undefined;
      if (carried) {
        const record = lease.registration(registration.key);
        scriptKeys.push(...record.keys);
        args.push(...record.args);
      }
      let reply: unknown[];
      try {
        reply = (await run(() => COMMIT.run(client, scriptKeys, args))) as unknown[];
      } catch (error) {
        if (registration) registrations.refused(registration);
        throw error;
      }
      if (reply[0] !== 'ok') {
        if (registration) registrations.refused(registration);
        prepared.revision(reply);
      }
      if (carried) registrations.committed(registration, Number(reply[2]) === 1);
      return { revision: Number(reply[1]), ids: reply.slice(3) as string[] };
    };
  }

  async function readLog(key: TaskKey, afterId: string | undefined): Promise<TaskEventLog> {
    const [exists, last, deleted, entries] = (await run(() =>
      READ.run(client, [keys.events(key.tenant, key.taskId)], [afterId ?? '']),
    )) as [number, string, string, [string, string[]][]];
    const events: TaskEventRecord[] = [];
    for (const [id, flat] of entries) {
      const record = toRecord(id, flatToFields(flat));
      if (record) events.push(record);
    }
    // No log but an id to resume from: the events after it left with the log (expired or deleted).
    const gap = afterId !== undefined && (exists === 0 || (deleted !== '' && compareStreamIds(afterId, deleted) < 0));
    return { events, lastId: last === '' ? undefined : last, gap };
  }

  return {
    keys,
    replicaId: lease?.id,

    async publish(key, input: TaskEventInput) {
      const id = await run(() =>
        PUBLISH.run(
          client,
          [keys.events(key.tenant, key.taskId)],
          [
            JSON.stringify(input.event),
            input.final ? '1' : '0',
            String(input.revision),
            String(maxEvents),
            String(input.final ? retentionMs : liveTtlMs),
          ],
        ),
      );
      return id as string;
    },

    async read(key, afterId) {
      if (afterId !== undefined && !isStreamId(afterId)) return undefined;
      return readLog(key, afterId);
    },

    async subscribe(key, subscribeOptions: TaskSubscribeOptions = {}): Promise<TaskSubscription | undefined> {
      const { afterId, signal } = subscribeOptions;
      if (afterId !== undefined && !isStreamId(afterId)) return undefined;
      const log = await readLog(key, afterId);
      const replay = afterId === undefined ? [] : log.events;
      const startId = afterId ?? log.lastId;
      // Live delivery continues right after what was replayed (or after the newest event when only live is asked for).
      const cursor = replay.at(-1)?.id ?? afterId ?? log.lastId ?? STREAM_START;
      let unwatch: (() => void) | undefined;
      const onAbort = (): void => queue.end();
      const queue: EventQueue<TaskEventRecord> = new EventQueue<TaskEventRecord>(bufferSize, () => {
        unwatch?.();
        signal?.removeEventListener('abort', onAbort);
        queues.delete(queue);
      });
      for (const record of replay) queue.push(record);
      if (closed || signal?.aborted === true || replay.at(-1)?.final === true) {
        queue.end();
      } else {
        queues.add(queue);
        unwatch = reader.watch(keys.events(key.tenant, key.taskId), cursor, {
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
    },

    async requestCancel(key, request: TaskCancelRequest) {
      const message = JSON.stringify(request.metadata === undefined ? {} : { metadata: request.metadata });
      const receivers = await run(() => client.sendCommand(['PUBLISH', keys.cancelChannel(key.tenant, key.taskId), message]));
      return Number(receivers) > 0;
    },

    onCancel(key, handler: TaskCancelHandler) {
      // The cancel registration is also the record that this replica runs the task (for the sweepers).
      if (closed) return () => {};
      return registrations.add(key, handler);
    },

    committerFor: commitFor,

    onOrphanedTask(handler) {
      if (sweeper === undefined) return () => {};
      sweeper.handler = handler;
      return () => {
        if (sweeper.handler === handler) sweeper.handler = undefined;
      };
    },

    async close() {
      closed = true;
      registrations.close();
      sweeper?.close();
      lease?.close();
      for (const queue of [...queues]) queue.end();
      await reader.close();
      // Not awaiting the connect: it may be waiting for a Redis that is down.
      const sub = subscriberClient;
      subscriberClient = undefined;
      subscriber = undefined;
      if (sub) {
        try {
          sub.destroy();
        } catch {
          // already closed
        }
      }
    },
  };
}
