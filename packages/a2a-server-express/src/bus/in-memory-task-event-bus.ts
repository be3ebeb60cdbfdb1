import { createEventQueue, type EventQueue } from '../core/event-queue.js';
import { cloneStored, cloneStoredSized } from '../store/clone.js';
import { EndedQueue } from '../store/ended-queue.js';
import { type TaskKey, taskMapKey } from '../store/task-store.js';
import type {
  TaskCancelHandler,
  TaskCancelRequest,
  TaskEventBus,
  TaskEventInput,
  TaskEventLog,
  TaskEventRecord,
  TaskSubscribeOptions,
  TaskSubscription,
} from './task-event-bus.js';

export interface InMemoryTaskEventBackendOptions {
  /** Most events kept per task for replay; older ones are dropped. Default 1 000. */
  maxEventsPerTask?: number;
  /** Bytes one task's log may hold (estimated as the task store does); its oldest events make room. Default 16 MiB. */
  maxTaskBytes?: number;
  /** Bytes all logs may hold together; the logs of ended tasks, then the oldest logs, are dropped to make room. Default 256 MiB. */
  maxBytes?: number;
  /** Most task logs kept; beyond it the logs of ended tasks, then the oldest logs, are dropped. Default 10 000. */
  maxTasks?: number;
  /** How long the log of a task is kept after its last event, when that event was final. Default 10 minutes. */
  retentionMs?: number;
  /** Clock, for tests. */
  now?: () => number;
}

/**
 * What several in-memory buses share, as replicas share one Redis: the logs, the live
 * subscribers and the cancel handlers of every task. Opaque: pass it to `createInMemoryTaskEventBus`.
 */
export interface InMemoryTaskEventBackend {
  /** Logs and estimated bytes held now (for health checks and tests). */
  stats(): { tasks: number; bytes: number; subscribers: number };
}

export interface InMemoryTaskEventBusOptions {
  /** The backend to share with other buses (replicas in one process, tests). Default: a backend of its own, with default limits. */
  backend?: InMemoryTaskEventBackend;
  /** Events buffered per subscriber before it fails with `SlowConsumerError`. Default 512. */
  subscriberBufferSize?: number;
}

/** A logged event: the record and its estimated bytes in one object (no array of sizes per log beside it). */
interface LogEntry extends TaskEventRecord {
  bytes: number;
}

/** The record of `entry` without its bookkeeping; the event is the log's copy, shared as before. */
const recordOf = (entry: LogEntry): TaskEventRecord => ({ id: entry.id, event: entry.event, final: entry.final, revision: entry.revision });

interface Log {
  events: LogEntry[];
  bytes: number;
  /** Numeric id of the newest event dropped from this log (0: none). */
  droppedThrough: number;
  /** When the newest event was final, the time it was published; else `undefined`. */
  endedAt: number | undefined;
}

interface Subscriber {
  queue: EventQueue<TaskEventRecord>;
}

/** Ids are decimal numbers from one counter per backend: increasing per task, and never reused when a log is dropped. */
const ID_PATTERN = /^\d{1,15}$/;

const parseId = (id: string): number | undefined => (ID_PATTERN.test(id) ? Number(id) : undefined);

class Backend implements InMemoryTaskEventBackend {
  private seq = 0;
  private readonly logs = new Map<string, Log>();
  /** Ended logs in the order they ended; an item is stale once its log went on, ended again or was dropped. */
  private readonly ended = new EndedQueue((key, endedAt) => this.logs.get(key)?.endedAt === endedAt);
  private bytes = 0;
  readonly subscribers = new Map<string, Set<Subscriber>>();
  readonly runners = new Map<string, Map<InMemoryTaskEventBus, TaskCancelHandler>>();
  private readonly maxEvents: number;
  private readonly maxTaskBytes: number;
  private readonly maxBytes: number;
  private readonly maxTasks: number;
  private readonly retentionMs: number;
  private readonly now: () => number;

  constructor(options: InMemoryTaskEventBackendOptions) {
    this.maxEvents = options.maxEventsPerTask ?? 1_000;
    this.maxTaskBytes = options.maxTaskBytes ?? 16 * 1024 * 1024;
    this.maxBytes = options.maxBytes ?? 256 * 1024 * 1024;
    this.maxTasks = options.maxTasks ?? 10_000;
    this.retentionMs = options.retentionMs ?? 10 * 60_000;
    this.now = options.now ?? Date.now;
    for (const [name, value] of [
      ['maxEventsPerTask', this.maxEvents],
      ['maxTaskBytes', this.maxTaskBytes],
      ['maxBytes', this.maxBytes],
      ['maxTasks', this.maxTasks],
    ] as const) {
      if (!(value >= 1)) throw new RangeError(`expected ${name} >= 1, got ${value}`);
    }
    if (!(this.retentionMs >= 0)) throw new RangeError(`expected retentionMs >= 0, got ${this.retentionMs}`);
  }

  stats(): { tasks: number; bytes: number; subscribers: number } {
    let subscribers = 0;
    for (const set of this.subscribers.values()) subscribers += set.size;
    return { tasks: this.logs.size, bytes: this.bytes, subscribers };
  }

  private expired(log: Log): boolean {
    return log.endedAt !== undefined && this.now() - log.endedAt > this.retentionMs;
  }

  /** The log of `k` unless it expired (then it is dropped). */
  private live(k: string): Log | undefined {
    const log = this.logs.get(k);
    if (log && this.expired(log)) {
      this.drop(k);
      return undefined;
    }
    return log;
  }

  private drop(k: string): void {
    const log = this.logs.get(k);
    if (!log) return;
    this.bytes -= log.bytes;
    this.logs.delete(k);
  }

  /** Drops expired logs, then ended logs, then the oldest logs, until the caps hold (never `except`). */
  private makeRoom(except: string, growth: number, adding: boolean): void {
    // An event for a log already kept, within the budget: the common case, nothing to drop.
    if (!adding && this.bytes + growth <= this.maxBytes) return;
    const now = this.now();
    for (let key = this.ended.oldest(except); key !== undefined; key = this.ended.oldest(except)) {
      const endedAt = this.logs.get(key)?.endedAt ?? now;
      if (now - endedAt <= this.retentionMs) break;
      this.drop(key);
    }
    while (this.bytes + growth > this.maxBytes || (adding && this.logs.size >= this.maxTasks)) {
      // A dropped log costs a resume its replay (the server then sends the stored task), never an event of a live stream.
      const victim = this.ended.oldest(except) ?? this.firstOther(except);
      if (victim === undefined) return;
      this.drop(victim);
    }
  }

  private firstOther(except: string): string | undefined {
    for (const key of this.logs.keys()) if (key !== except) return key;
    return undefined;
  }

  publish(key: TaskKey, input: TaskEventInput): string {
    const k = taskMapKey(key);
    const copy = cloneStoredSized(input.event);
    let log = this.live(k);
    this.makeRoom(k, copy.bytes, log === undefined);
    if (!log) {
      log = { events: [], bytes: 0, droppedThrough: 0, endedAt: undefined };
      this.logs.set(k, log);
    }
    this.seq += 1;
    const entry: LogEntry = { id: String(this.seq), event: copy.value, final: input.final, revision: input.revision, bytes: copy.bytes };
    log.events.push(entry);
    log.bytes += copy.bytes;
    this.bytes += copy.bytes;
    while (log.events.length > 1 && (log.events.length > this.maxEvents || log.bytes > this.maxTaskBytes)) this.trim(log);
    if (input.final) {
      log.endedAt = this.now();
      this.ended.push(k, log.endedAt);
      // On every final event, so a queue never walked to its end is compacted all the same.
      this.ended.compact(this.logs.size);
    } else {
      log.endedAt = undefined;
    }
    const subscribers = this.subscribers.get(k);
    if (subscribers !== undefined && subscribers.size > 0) {
      const record = recordOf(entry);
      for (const subscriber of [...subscribers]) {
        subscriber.queue.push(record);
        if (record.final) subscriber.queue.end();
      }
    }
    return entry.id;
  }

  private trim(log: Log): void {
    const dropped = log.events.shift();
    if (dropped !== undefined) log.droppedThrough = Number(dropped.id);
    const size = dropped?.bytes ?? 0;
    log.bytes -= size;
    this.bytes -= size;
  }

  /** Events after `after` (0: all retained), whether some were dropped, and the newest id. */
  read(key: TaskKey, after: number, given: boolean): { events: TaskEventRecord[]; lastId: string | undefined; gap: boolean } {
    const log = this.live(taskMapKey(key));
    // No log, yet an id to resume from: the events after it may have been dropped with the log.
    if (!log) return { events: [], lastId: undefined, gap: given };
    let start = log.events.length;
    while (start > 0 && Number((log.events[start - 1] as LogEntry).id) > after) start -= 1;
    return { events: log.events.slice(start).map(recordOf), lastId: log.events.at(-1)?.id, gap: after < log.droppedThrough };
  }
}

class InMemoryTaskEventBus implements TaskEventBus {
  private readonly subscribers = new Set<{ k: string; subscriber: Subscriber }>();
  private readonly handlers = new Set<string>();
  private closed = false;

  constructor(
    private readonly backend: Backend,
    private readonly bufferSize: number,
  ) {}

  async publish(key: TaskKey, input: TaskEventInput): Promise<string> {
    return this.backend.publish(key, input);
  }

  async read(key: TaskKey, afterId?: string): Promise<TaskEventLog | undefined> {
    const after = afterId === undefined ? 0 : parseId(afterId);
    if (after === undefined) return undefined;
    const log = this.backend.read(key, after, afterId !== undefined);
    return { events: log.events.map((e) => cloneStored(e)), lastId: log.lastId, gap: log.gap };
  }

  async subscribe(key: TaskKey, options: TaskSubscribeOptions = {}): Promise<TaskSubscription | undefined> {
    const after = options.afterId === undefined ? undefined : parseId(options.afterId);
    if (options.afterId !== undefined && after === undefined) return undefined;
    const k = taskMapKey(key);
    // Read and attach in one synchronous step: no event can be published in between.
    const log = this.backend.read(key, after ?? 0, after !== undefined);
    const replay = after === undefined ? [] : log.events;
    const startId = options.afterId ?? log.lastId;
    const { signal } = options;
    let entry: { k: string; subscriber: Subscriber } | undefined;
    let released = false;
    const onAbort = (): void => queue.end();
    const queue = createEventQueue<TaskEventRecord>(this.bufferSize, () => {
      released = true;
      signal?.removeEventListener('abort', onAbort);
      if (entry === undefined) return;
      this.subscribers.delete(entry);
      const set = this.backend.subscribers.get(k);
      set?.delete(entry.subscriber);
      if (set?.size === 0) this.backend.subscribers.delete(k);
    });
    for (const record of replay) queue.push(record);
    // A replay longer than the buffer has already failed the queue (`released`).
    const ended = released || this.closed || signal?.aborted === true || replay.at(-1)?.final === true;
    if (ended) {
      queue.end();
    } else {
      entry = { k, subscriber: { queue } };
      this.subscribers.add(entry);
      let set = this.backend.subscribers.get(k);
      if (set === undefined) {
        set = new Set();
        this.backend.subscribers.set(k, set);
      }
      set.add(entry.subscriber);
      signal?.addEventListener('abort', onAbort, { once: true });
    }
    return {
      startId,
      gap: log.gap && after !== undefined,
      close: () => queue.end(),
      [Symbol.asyncIterator]: () => queue[Symbol.asyncIterator](),
    };
  }

  async requestCancel(key: TaskKey, request: TaskCancelRequest): Promise<boolean> {
    const handlers = this.backend.runners.get(taskMapKey(key));
    if (handlers === undefined || handlers.size === 0) return false;
    for (const handler of [...handlers.values()]) {
      try {
        handler(cloneStored(request));
      } catch {
        // A runner's failure to cancel is its own to report; the request was delivered.
      }
    }
    return true;
  }

  onCancel(key: TaskKey, handler: TaskCancelHandler): () => void {
    const k = taskMapKey(key);
    let handlers = this.backend.runners.get(k);
    if (handlers === undefined) {
      handlers = new Map();
      this.backend.runners.set(k, handlers);
    }
    handlers.set(this, handler);
    this.handlers.add(k);
    return () => {
      const current = this.backend.runners.get(k);
      if (current?.get(this) !== handler) return;
      current.delete(this);
      if (current.size === 0) this.backend.runners.delete(k);
      this.handlers.delete(k);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const { subscriber } of [...this.subscribers]) subscriber.queue.end();
    for (const k of this.handlers) {
      const current = this.backend.runners.get(k);
      current?.delete(this);
      if (current?.size === 0) this.backend.runners.delete(k);
    }
    this.handlers.clear();
  }
}

/** A backend for in-memory buses; buses made from the same backend see each other's events and cancels. */
export function createInMemoryTaskEventBackend(options: InMemoryTaskEventBackendOptions = {}): InMemoryTaskEventBackend {
  return new Backend(options);
}

/** The embedded default `TaskEventBus`: one process, bounded logs, no I/O. */
export function createInMemoryTaskEventBus(options: InMemoryTaskEventBusOptions = {}): TaskEventBus {
  const backend = options.backend ?? new Backend({});
  if (!(backend instanceof Backend)) throw new TypeError('expected backend from createInMemoryTaskEventBackend');
  const bufferSize = options.subscriberBufferSize ?? 512;
  if (!(bufferSize >= 1)) throw new RangeError(`expected subscriberBufferSize >= 1, got ${options.subscriberBufferSize}`);
  return new InMemoryTaskEventBus(backend, bufferSize);
}
