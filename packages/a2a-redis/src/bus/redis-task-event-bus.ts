import type {
  EventQueue,
  TaskCancelHandler,
  TaskCancelRequest,
  TaskEventBus,
  TaskEventInput,
  TaskEventRecord,
  TaskSubscribeOptions,
  TaskSubscription,
} from '@a2aplane/a2a-server-express';
import { guardClient, type RedisClientLike, withDeadline } from '../connection.js';
import { createKeys, type RedisKeys } from '../keys.js';
import { CancelRegistrations } from './cancel-registrations.js';
import { createCommitter } from './commit.js';
import { readEventLog } from './event-log.js';
import { subscribeToTask } from './live-subscription.js';
import { OrphanSweeper } from './orphan-sweeper.js';
import { type OrphanRecoveryOptions, ReplicaLease } from './replica-lease.js';
import { PUBLISH } from './scripts.js';
import { isStreamId } from './stream-id.js';
import { StreamReader } from './stream-reader.js';

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

  const logDeps = { client, keys, run };
  const commitFor = createCommitter({ ...logDeps, registrations, lease, maxEvents, liveTtlMs, retentionMs });
  const subscriptionDeps = { ...logDeps, reader, bufferSize, queues, closed: () => closed };

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
      return readEventLog(logDeps, key, afterId);
    },

    async subscribe(key, subscribeOptions: TaskSubscribeOptions = {}): Promise<TaskSubscription | undefined> {
      const { afterId } = subscribeOptions;
      if (afterId !== undefined && !isStreamId(afterId)) return undefined;
      return subscribeToTask(subscriptionDeps, key, subscribeOptions, afterId);
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
