import type { RedisClientLike } from '../connection.js';
import { toUnavailable } from '../connection.js';
import { RedisUnavailableError } from '../errors.js';
import { BlockingConnection } from './blocking-connection.js';
import { flatToFields } from './event-log.js';
import { compareStreamIds } from './stream-id.js';

/** One entry of a stream: its id and its fields. */
export interface StreamEntry {
  id: string;
  fields: Record<string, string>;
}

interface StreamWatcher {
  /** Entries after the watcher's cursor, in order; the cursor then moves to the last one. */
  onEntries(entries: StreamEntry[]): void;
  /** The reader gave up (Redis unavailable for too long, or the bus closed): the watcher is removed. */
  onError(error: Error): void;
}

interface StreamReaderOptions {
  /** The connection commands (CLIENT UNBLOCK) go through; the reader duplicates it for its blocking connection. */
  client: RedisClientLike;
  /** Longest XREAD BLOCK. Default 5 000 ms (a new watcher interrupts it with CLIENT UNBLOCK). */
  blockMs?: number;
  /** Entries read per stream per round trip. Default 256. */
  batch?: number;
  /** How long Redis may fail before watchers are told (they resume with Last-Event-ID). Default 5 000 ms. */
  giveUpAfterMs?: number;
  onError?: (error: unknown) => void;
}

interface Watch {
  key: string;
  cursor: string;
  watcher: StreamWatcher;
}

type Reply = [string, [string, string[]][]][] | null;

/** Per stream, the earliest cursor of its watchers; each watcher then takes what is after its own. */
function earliestCursors(watches: Iterable<Watch>): Map<string, string> {
  const cursors = new Map<string, string>();
  for (const w of watches) {
    const c = cursors.get(w.key);
    if (c === undefined || compareStreamIds(w.cursor, c) < 0) cursors.set(w.key, w.cursor);
  }
  return cursors;
}

/**
 * One blocking reader per replica: a single XREAD BLOCK on a dedicated connection multiplexes
 * every stream this replica's subscribers follow (a connection per subscriber would not scale).
 * Each watch keeps its own cursor, so delivery is exact: entries after the cursor, once, in order.
 * Adding a watch wakes the blocked read with CLIENT UNBLOCK so it joins at once.
 */
export class StreamReader {
  private readonly watches = new Set<Watch>();
  private readonly reader: BlockingConnection;
  private running: Promise<void> | undefined;
  private closed = false;
  /** Bumped on every new watch; the loop records the generation each XREAD was built from. */
  private generation = 0;
  private readGeneration = 0;
  private readonly blockMs: number;
  private readonly batch: number;
  private readonly giveUpAfterMs: number;
  private readonly onError: (error: unknown) => void;

  constructor(options: StreamReaderOptions) {
    this.blockMs = options.blockMs ?? 5_000;
    this.batch = options.batch ?? 256;
    this.giveUpAfterMs = options.giveUpAfterMs ?? 5_000;
    this.onError = options.onError ?? (() => {});
    this.reader = new BlockingConnection(options.client, this.onError);
  }

  /** Follows `key` from `cursor` (exclusive); returns the function that stops it. */
  watch(key: string, cursor: string, watcher: StreamWatcher): () => void {
    if (this.closed) {
      watcher.onError(new RedisUnavailableError('closed'));
      return () => {};
    }
    const watch: Watch = { key, cursor, watcher };
    this.watches.add(watch);
    this.generation += 1;
    this.ensureLoop();
    void this.wake();
    return () => {
      this.watches.delete(watch);
    };
  }

  /** Starts the read loop unless it runs; a loop that ended while a watch was being added starts again. */
  private ensureLoop(): void {
    if (this.running || this.closed) return;
    this.running = this.loop().finally(() => {
      this.running = undefined;
      if (this.watches.size > 0) this.ensureLoop();
    });
  }

  /** Watches now (for tests and stats). */
  get size(): number {
    return this.watches.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    const error = new RedisUnavailableError('closed');
    for (const w of [...this.watches]) this.fail(w, error);
    await this.wake();
    this.reader.destroy();
    await this.running;
  }

  private fail(watch: Watch, error: Error): void {
    this.watches.delete(watch);
    try {
      watch.watcher.onError(error);
    } catch (e) {
      this.onError(e);
    }
  }

  /** Interrupts a blocked XREAD built before the newest watch (retries briefly: the read may not have reached Redis yet). */
  private async wake(): Promise<void> {
    const wanted = this.generation;
    for (let attempt = 0; attempt < 50 && this.readGeneration < wanted && this.running; attempt++) {
      try {
        if (await this.reader.unblock()) return;
      } catch {
        return; // Redis is down: the loop's retry picks the watch up when it is back.
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }

  private async loop(): Promise<void> {
    let failingSince: number | undefined;
    let delay = 50;
    while (!this.closed && this.watches.size > 0) {
      try {
        await this.reader.ready();
        const cursors = earliestCursors(this.watches);
        this.readGeneration = this.generation;
        const keys = [...cursors.keys()];
        const xread = ['XREAD', 'COUNT', String(this.batch), 'BLOCK', String(this.blockMs), 'STREAMS', ...keys, ...cursors.values()];
        const reply = (await this.reader.block(xread)) as Reply;
        failingSince = undefined;
        delay = 50;
        if (reply) this.deliver(reply);
      } catch (error) {
        if (this.closed) return;
        const now = Date.now();
        failingSince ??= now;
        this.onError(error);
        if (now - failingSince >= this.giveUpAfterMs) {
          const unavailable = toUnavailable(error);
          const reason = RedisUnavailableError.isInstance(unavailable) ? unavailable : new RedisUnavailableError('unreachable');
          for (const w of [...this.watches]) this.fail(w, reason);
          failingSince = undefined;
          continue;
        }
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(delay * 2, 1_000);
      }
    }
  }

  private deliver(reply: NonNullable<Reply>): void {
    for (const [key, raw] of reply) {
      if (raw.length === 0) continue;
      const entries: StreamEntry[] = raw.map(([id, flat]) => ({ id, fields: flatToFields(flat) }));
      for (const w of [...this.watches]) {
        if (w.key !== key) continue;
        const fresh = entries.filter((e) => compareStreamIds(e.id, w.cursor) > 0);
        if (fresh.length === 0) continue;
        w.cursor = (fresh.at(-1) as StreamEntry).id;
        try {
          w.watcher.onEntries(fresh);
        } catch (error) {
          this.fail(w, error instanceof Error ? error : new Error(String(error)));
        }
      }
    }
  }
}
