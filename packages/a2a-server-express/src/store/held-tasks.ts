import { isTerminalTaskState } from '@a2aplane/a2a-types';
import { EndedQueue } from './ended-queue.js';
import type { OwnerShares } from './owner-shares.js';
import { type StoredPushConfig, type StoredTask, type TaskKey, taskMapKey } from './task-store.js';
import { TaskStoreFullError } from './task-store-full.js';

export interface HeldTask {
  record: StoredTask;
  recordBytes: number;
  /**
   * Push configs and their bytes by id, made with the first config: most tasks never get one, and
   * two empty Maps per stored task were a sixth of the objects a full store keeps for the collector.
   */
  push: Map<string, { config: StoredPushConfig; bytes: number }> | undefined;
  /** recordBytes + the push config bytes. */
  bytes: number;
}

/** Room a terminal write may take beyond the caps, so a task at its limit can still end FAILED or CANCELED. */
const TERMINAL_SLACK_BYTES = 4096;

/**
 * The tasks an in-memory store holds, within its budgets: the entries with their estimated bytes,
 * the index of terminal tasks in the order they ended, their TTL expiry, and eviction (oldest
 * terminal task first; a live task is never evicted, so with none terminal left a write is refused).
 */
export class HeldTasks {
  readonly entries = new Map<string, HeldTask>();
  /** Terminal tasks: key -> the time they ended (their last update). */
  private readonly terminal = new Map<string, number>();
  /** The same keys in the order they ended, oldest first; an item is stale once its task changed or left. */
  private readonly ended = new EndedQueue((key, endedAt) => this.terminal.get(key) === endedAt);
  /** Sum of every entry's `bytes`. */
  private bytes = 0;

  constructor(
    /** The store's budgets, resolved. */
    private readonly limits: {
      readonly terminalTtlMs: number;
      readonly maxTasks: number;
      readonly maxBytes: number;
      readonly maxTaskBytes: number;
      readonly now: () => number;
    },
    private readonly shares: OwnerShares,
  ) {}

  stats(): { tasks: number; bytes: number; maxBytes: number } {
    return { tasks: this.entries.size, bytes: this.bytes, maxBytes: this.limits.maxBytes };
  }

  /**
   * Makes room for `growth` more bytes of the task at `k` (`terminal`: the write ends the task):
   * over the per-task cap the write is refused; over the budget the oldest terminal tasks other
   * than `k` are evicted, and with none left the write is refused.
   */
  reserve(k: string, entryBytes: number, growth: number, terminal: boolean): void {
    if (growth <= 0) return;
    // A small final write always goes in, so a task at its limits can still end FAILED.
    const finalWrite = terminal && growth <= TERMINAL_SLACK_BYTES;
    if (entryBytes + growth > this.limits.maxTaskBytes && !finalWrite) {
      throw new TaskStoreFullError('maxTaskBytes', `The task would hold more than ${this.limits.maxTaskBytes} bytes`);
    }
    while (this.bytes + growth > this.limits.maxBytes) {
      const victim = this.ended.oldest(k);
      if (victim === undefined) {
        if (finalWrite) return;
        throw new TaskStoreFullError('maxBytes', `The task store is full (${this.limits.maxBytes} bytes); retry later`);
      }
      this.remove(victim);
    }
  }

  expired(entry: HeldTask): boolean {
    return isTerminalTaskState(entry.record.task.status.state) && this.limits.now() - entry.record.updatedAt > this.limits.terminalTtlMs;
  }

  live(key: TaskKey): HeldTask | undefined {
    const k = taskMapKey(key);
    const entry = this.entries.get(k);
    if (entry && this.expired(entry)) {
      this.remove(k);
      return undefined;
    }
    return entry;
  }

  remove(k: string): void {
    const entry = this.entries.get(k);
    if (entry) {
      this.bytes -= entry.bytes;
      this.shares.charge(entry, -1);
    }
    this.entries.delete(k);
    this.terminal.delete(k);
  }

  resize(entry: HeldTask, delta: number): void {
    entry.bytes += delta;
    this.bytes += delta;
  }

  /** Keeps the terminal index in step with a stored record. */
  track(k: string, record: StoredTask): void {
    if (!isTerminalTaskState(record.task.status.state)) {
      this.terminal.delete(k);
      return;
    }
    this.terminal.set(k, record.updatedAt);
    this.ended.push(k, record.updatedAt);
  }

  /**
   * The retention sweep: drops terminal tasks past their TTL with their push configs (credentials
   * included). `makeRoom` (a new task): also evicts terminal tasks, oldest first, until there is room
   * for one more; a live task is never evicted, so with none terminal left a new task is refused.
   * Amortised O(1) per insert: both walks stop at the first survivor.
   */
  sweep(makeRoom = false): void {
    const now = this.limits.now();
    for (
      let key = this.ended.oldest();
      key !== undefined && now - (this.terminal.get(key) as number) > this.limits.terminalTtlMs;
      key = this.ended.oldest()
    ) {
      this.remove(key);
    }
    while (makeRoom && this.entries.size >= this.limits.maxTasks) {
      const oldest = this.ended.oldest();
      if (oldest === undefined)
        throw new TaskStoreFullError('maxTasks', `The task store is full (${this.limits.maxTasks} live tasks); retry later`);
      this.remove(oldest);
    }
    this.ended.compact(this.terminal.size);
  }
}
