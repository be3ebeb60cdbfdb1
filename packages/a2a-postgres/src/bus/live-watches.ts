import { createHash } from 'node:crypto';
import { type EventQueue, SlowConsumerError, type TaskEventRecord, type TaskKey } from '@a2aplane/a2a-server-express';
import { hasGap, type LogRead, toRecord } from './log-reader.js';

/** The NOTIFY topic of a task: a fixed-size digest of its key (payloads are bounded; tenants and ids are not). */
export const topicOf = (key: TaskKey): string =>
  createHash('sha256')
    .update(JSON.stringify([key.tenant, key.taskId]))
    .digest('base64url')
    .slice(0, 22);

/** One subscription's place in its task's log. */
export interface Subscriber {
  queue: EventQueue<TaskEventRecord>;
  /** Sequence number of the last event delivered (or the start point). */
  cursor: number;
  /** Its replay is done: live reads deliver to it. */
  ready: boolean;
}

interface Watch {
  key: TaskKey;
  subscribers: Set<Subscriber>;
  fetching: boolean;
  again: boolean;
  /** Notifications seen, so a subscriber that replayed meanwhile knows to read again. */
  notified: number;
}

interface LiveWatchesOptions {
  read(key: TaskKey, afterSeq: number): Promise<LogRead>;
  /** A live read failed (it is retried after a pause; subscribers fail only when the listener gives up). */
  onReadError(error: unknown): void;
}

/**
 * Live delivery for the subscriptions of one replica, driven by NOTIFY: a notification for a task
 * with subscribers here reads its log after the lowest cursor (one read per task, however many
 * subscribers) and hands each subscriber the events past its own cursor. Notifications are only
 * hints; the log is the truth, so a lost or late one costs a read, never an event.
 */
export class LiveWatches {
  private readonly watches = new Map<string, Watch>();

  constructor(private readonly options: LiveWatchesOptions) {}

  /** Adds a subscriber (not ready yet); resolves the watch's notification count to compare after the replay. */
  add(key: TaskKey, subscriber: Subscriber): number {
    const topic = topicOf(key);
    let watch = this.watches.get(topic);
    if (watch === undefined) {
      watch = { key, subscribers: new Set(), fetching: false, again: false, notified: 0 };
      this.watches.set(topic, watch);
    }
    watch.subscribers.add(subscriber);
    return watch.notified;
  }

  remove(key: TaskKey, subscriber: Subscriber): void {
    const topic = topicOf(key);
    const watch = this.watches.get(topic);
    if (!watch) return;
    watch.subscribers.delete(subscriber);
    if (watch.subscribers.size === 0) this.watches.delete(topic);
  }

  /** The subscriber finished its replay: it goes live, reading at once if a notification came meanwhile. */
  activate(key: TaskKey, subscriber: Subscriber, notifiedBefore: number): void {
    subscriber.ready = true;
    const watch = this.watches.get(topicOf(key));
    if (watch && watch.notified !== notifiedBefore) void this.fetch(watch);
  }

  /** A NOTIFY payload `topic seq`. */
  notified(payload: string): void {
    const [topic, seqText] = payload.split(' ');
    const watch = topic === undefined ? undefined : this.watches.get(topic);
    if (!watch) return;
    watch.notified += 1;
    const seq = Number(seqText);
    for (const subscriber of watch.subscribers) {
      if (!subscriber.ready || !(subscriber.cursor >= seq)) {
        void this.fetch(watch);
        return;
      }
    }
  }

  /** Reads every watched task again (after a reconnection: notifications sent meanwhile were lost). */
  catchUp(): void {
    for (const watch of this.watches.values()) void this.fetch(watch);
  }

  failAll(error: unknown): void {
    for (const watch of [...this.watches.values()]) for (const subscriber of [...watch.subscribers]) subscriber.queue.fail(error);
  }

  endAll(): void {
    for (const watch of [...this.watches.values()]) for (const subscriber of [...watch.subscribers]) subscriber.queue.end();
  }

  private async fetch(watch: Watch): Promise<void> {
    if (watch.fetching) {
      watch.again = true;
      return;
    }
    watch.fetching = true;
    try {
      do {
        watch.again = false;
        const ready = [...watch.subscribers].filter((s) => s.ready);
        if (ready.length === 0) return;
        const after = Math.min(...ready.map((s) => s.cursor));
        let log: LogRead;
        try {
          log = await this.options.read(watch.key, after);
        } catch (error) {
          this.options.onReadError(error);
          // Tried again shortly (and after a reconnection, by `catchUp`).
          setTimeout(() => void this.fetch(watch), 250).unref?.();
          return;
        }
        for (const subscriber of ready) deliver(subscriber, log);
      } while (watch.again);
    } finally {
      watch.fetching = false;
    }
  }
}

/** Hands a subscriber the events past its cursor; ends it after a final event that is the newest of the log. */
function deliver(subscriber: Subscriber, log: LogRead): void {
  if (log.exists && hasGap(log, subscriber.cursor)) {
    // Trimmed past it while it lagged: it resumes with its last id and gets `gap`.
    subscriber.queue.fail(new SlowConsumerError());
    return;
  }
  for (const record of log.events) {
    if (record.seq <= subscriber.cursor) continue;
    subscriber.queue.push(toRecord(record));
    subscriber.cursor = record.seq;
    if (record.final && record.seq === log.lastSeq) {
      subscriber.queue.end();
      return;
    }
  }
}
