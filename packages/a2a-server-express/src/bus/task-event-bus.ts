import type { A2AError, StreamResponse } from '@a2aplane/a2a-types';
import type { TaskKey, TaskRecord, TaskStore, TaskWriteOptions } from '../store/task-store.js';

/** What the replica running a task publishes: one event of the task. */
export interface TaskEventInput {
  event: StreamResponse;
  /**
   * The event ends a stream: the task reached a terminal or interrupted state (or the event is
   * the Message a run answered with). A subscription ends after such an event (see `subscribe`).
   */
  final: boolean;
  /**
   * `StoredTask.revision` of the task write this event came from (the store is written first,
   * then the event published). A subscriber that seeds its stream with a stored snapshot drops
   * live events whose revision the snapshot already holds.
   */
  revision: number;
}

/** One event of a task's log. */
export interface TaskEventRecord extends TaskEventInput {
  /**
   * Opaque, and increasing per task in the bus's own order (in memory `"17"`, on Redis Streams
   * `"1700000000000-0"`): the SSE `id:` of the event, so `Last-Event-ID` resumes on any
   * replica sharing the bus. Callers never compare or parse ids; only the bus does.
   */
  id: string;
}

/** An event of a `TaskCommit`: its revision is the one the commit's write produces. */
export type TaskCommitEvent = Omit<TaskEventInput, 'revision'>;

/** What a `TaskCommit` did: the task's new revision and the ids of its events, in order. */
export interface TaskCommitResult {
  revision: number;
  ids: string[];
}

/**
 * Writes a task (compare-and-set, exactly as `TaskStore.upsert`) and appends events to its log in
 * one atomic step: both happen or neither does. Rejects as `upsert` does
 * (`TaskRevisionConflictError`, `TaskStoreFullError`, the backend's unavailability), having
 * written and published nothing.
 */
export type TaskCommit = (record: TaskRecord, options: TaskWriteOptions, events: readonly TaskCommitEvent[]) => Promise<TaskCommitResult>;

/** A read of a task's log. */
export interface TaskEventLog {
  /** The retained events after the id read from, oldest first. */
  events: TaskEventRecord[];
  /** Id of the newest event published for the task (`undefined` when none is retained or known). */
  lastId: string | undefined;
  /**
   * Events after the id read from were dropped (trimmed to the bus's per-task cap, or the log
   * expired) before this read: `events` does not continue from that id. The server then sends
   * the stored task instead of a stream with a hole in it.
   */
  gap: boolean;
}

export interface TaskSubscribeOptions {
  /** Replay the events after this id, then continue live. Absent: live events only, from the moment the subscription starts. */
  afterId?: string;
  /** Ends the subscription (the iterator finishes without an error). */
  signal?: AbortSignal;
}

/**
 * A live subscription to a task's events: an async iterable of the replayed, then live, events,
 * in id order, each once. It finishes after it yields an event marked `final` that was the newest
 * event of the task when yielded (a replay that passes an interrupted state and goes on does not
 * end there), when `close()` is called or the `signal` aborts, and when the bus closes. A consumer
 * that falls too far behind may get `SlowConsumerError` (it resumes with the last id it saw).
 */
export interface TaskSubscription extends AsyncIterable<TaskEventRecord> {
  /** The id the subscription continues after: `afterId` when given, else the newest id when it started (`undefined`: none yet). */
  readonly startId: string | undefined;
  /** As `TaskEventLog.gap`: events after `afterId` were dropped, the replay does not continue from it. */
  readonly gap: boolean;
  /** Stops the subscription and releases what it holds. Idempotent. */
  close(): void;
}

/** A request to cancel a running task, sent to the replica running its executor. */
export interface TaskCancelRequest {
  /** `CancelTask` params metadata, carried into the CANCELED status update. */
  metadata?: Record<string, unknown>;
}

/** Called on the replica running a task's executor when a cancel of that task is requested anywhere. */
export type TaskCancelHandler = (request: TaskCancelRequest) => void;

/**
 * Ends a task whose runner is gone (its replica died while the executor ran): the server writes
 * the task FAILED with `reason`'s ErrorInfo in its status message, through the task's normal
 * compare-and-set write and a final event on the bus. Resolves `true` once it wrote the failure,
 * `false` when there was nothing to end (the task is terminal, no longer stored, or runs on this
 * replica); rejects when the store or bus failed (the caller tries again later).
 */
export type OrphanedTaskHandler = (key: TaskKey, reason: A2AError) => Promise<boolean>;

/**
 * The events of tasks, shared by every replica using the same bus backend (one process for the
 * in-memory bus; Redis Streams for `@a2aplane/a2a-redis`): the per-task event log that
 * `Last-Event-ID` replays, live fan-out to subscribers on any replica, and cancel fan-out to the
 * replica running a task's executor.
 *
 * Delivery is lossless and ordered per task: a subscriber sees every event published after its
 * start point, once, in id order, whichever replica published it. Only the replica running a
 * task's executor publishes its events (the server serialises them per task), so a bus needs no
 * ordering between concurrent publishers of one task beyond its own id order.
 */
export interface TaskEventBus {
  /** Appends an event to the task's log and delivers it to its subscribers; resolves its id. */
  publish(key: TaskKey, input: TaskEventInput): Promise<string>;
  /**
   * The retained events after `afterId` (all retained events when absent). Resolves `undefined`
   * when `afterId` is not an id this bus could have issued (malformed): a bad `Last-Event-ID`.
   */
  read(key: TaskKey, afterId?: string): Promise<TaskEventLog | undefined>;
  /**
   * Subscribes to the task's events: replays those after `afterId`, then delivers live events
   * without a gap between the two. Resolves once the subscription is in place (every event
   * published after that is delivered), or `undefined` when `afterId` is malformed (as `read`).
   */
  subscribe(key: TaskKey, options?: TaskSubscribeOptions): Promise<TaskSubscription | undefined>;
  /**
   * Asks the replica running the task's executor to cancel it. Resolves `true` when a handler
   * registered with `onCancel` (on any replica) received the request, `false` when none is
   * registered: nobody runs the task, so the caller ends it itself (a compare-and-set write).
   */
  requestCancel(key: TaskKey, request: TaskCancelRequest): Promise<boolean>;
  /**
   * Registers this replica as the runner of the task's executor: `handler` gets the cancel
   * requests made anywhere until the returned function is called. One handler per task and bus
   * instance; registration may take effect a moment later on a remote backend (a request that
   * finds no runner meanwhile resolves `false`, and the compare-and-set of the task settles it).
   */
  onCancel(key: TaskKey, handler: TaskCancelHandler): () => void;
  /**
   * Optional, for a bus shared by replicas that can tell when one of them died (a liveness lease):
   * a server using the bus registers here how a task is ended from outside its run, and the bus
   * calls `handler` for each task whose runner (as registered with `onCancel`) is gone. One
   * handler per bus instance; the returned function unregisters it.
   */
  onOrphanedTask?(handler: OrphanedTaskHandler): () => void;
  /**
   * Optional, for a bus that keeps its logs in the same backend as `store` (one Redis): a
   * `TaskCommit` that writes to `store` and appends to this bus in one step, one round trip where
   * the server would otherwise make one for the write and one per event. `undefined` when it cannot
   * (another kind of store, or another connection): the server then writes, then publishes.
   * Asked once, when a server is created.
   */
  committerFor?(store: TaskStore): TaskCommit | undefined;
  /** Ends every subscription of this instance and drops its cancel handlers. Does not delete logs. */
  close(): Promise<void>;
}
