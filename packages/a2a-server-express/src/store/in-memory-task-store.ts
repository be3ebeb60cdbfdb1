import { isTerminalTaskState, RateLimitedError } from '@a2aplane/a2a-types';
import { cloneStored, cloneStoredSized } from './clone.js';
import { EndedQueue } from './ended-queue.js';
import { listPage } from './list-page.js';
import { IdempotencyKeys } from './idempotency-keys.js';
import { OwnerShares, type ShareLimit } from './owner-shares.js';
import {
  type SendKey,
  type StoredPushConfig,
  type StoredTask,
  type TaskKey,
  type TaskListPage,
  type TaskAdmission,
  type TaskListQuery,
  type TaskRecord,
  TaskRevisionConflictError,
  type TaskStore,
  type TaskWriteOptions,
  taskMapKey,
} from './task-store.js';

export interface InMemoryTaskStoreOptions {
  /** How long a terminal task is kept after its last change. Default 10 minutes. */
  terminalTtlMs?: number;
  /**
   * Most tasks kept; beyond it the oldest terminal task is evicted. Tasks that are not terminal are
   * never evicted: with no terminal task left, a new task is refused (`TaskStoreFullError`). Default 10 000.
   */
  maxTasks?: number;
  /**
   * Bytes all tasks may hold together (records and push configs, estimated on the high
   * side: two bytes a character plus a fixed overhead per value). Evicts the oldest terminal tasks
   * to make room; refuses the write (`TaskStoreFullError`) when only live tasks are left. Default 256 MiB.
   */
  maxBytes?: number;
  /** Bytes one task may hold (record and push configs); a write beyond it is refused. Default 16 MiB. */
  maxTaskBytes?: number;
  /**
   * Live tasks one caller (tenant and owner) may hold: its fair share, so one caller cannot get
   * every other refused. Beyond it its new tasks are refused (`TaskStoreFullError`, limit
   * `maxTasksPerOwner`). Default half of `maxTasks`. Anonymous callers are one caller.
   */
  maxTasksPerOwner?: number;
  /** Bytes one caller's live tasks may hold together (limit `maxBytesPerOwner`). Default half of `maxBytes`. */
  maxBytesPerOwner?: number;
  /** How long a SendMessage key (tenant, caller, messageId) is remembered. Default 10 minutes. */
  idempotencyTtlMs?: number;
  /** Most SendMessage keys kept; beyond it the oldest is forgotten. Default 10 000. */
  maxIdempotencyKeys?: number;
  /** Clock, for tests. */
  now?: () => number;
}

interface Entry {
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
 * The in-memory store refused a write: it is at its task count or byte budget with only live
 * tasks left (never evicted), or one task would outgrow `maxTaskBytes`. Crosses the wire as
 * `RateLimitedError` (429, `RESOURCE_EXHAUSTED`, retryable) with `metadata.limit` naming the cap.
 */
export class TaskStoreFullError extends RateLimitedError {
  readonly limit: 'maxTasks' | 'maxBytes' | 'maxTaskBytes' | ShareLimit;

  constructor(limit: 'maxTasks' | 'maxBytes' | 'maxTaskBytes' | ShareLimit, message: string) {
    super({ message, metadata: { limit }, ...(limit === 'maxTaskBytes' ? {} : { retryAfterSeconds: 1 }) });
    this.name = 'TaskStoreFullError';
    this.limit = limit;
  }
}

const refuseShare = (limit: ShareLimit, message: string): never => {
  throw new TaskStoreFullError(limit, message);
};

/** The default store: a bounded map with TTL expiry of terminal tasks. Not shared between processes. */
export class InMemoryTaskStore implements TaskStore {
  private readonly entries = new Map<string, Entry>();
  /** Terminal tasks: key -> the time they ended (their last update). */
  private readonly terminal = new Map<string, number>();
  /** The same keys in the order they ended, oldest first; an item is stale once its task changed or left. */
  private readonly ended = new EndedQueue((key, endedAt) => this.terminal.get(key) === endedAt);
  private readonly terminalTtlMs: number;
  private readonly maxTasks: number;
  private readonly maxBytes: number;
  private readonly maxTaskBytes: number;
  private readonly now: () => number;
  /** Sum of every entry's `bytes`. */
  private bytes = 0;
  private readonly sendKeys: IdempotencyKeys;
  private readonly shares: OwnerShares;

  constructor(options: InMemoryTaskStoreOptions = {}) {
    this.terminalTtlMs = options.terminalTtlMs ?? 10 * 60_000;
    this.maxTasks = options.maxTasks ?? 10_000;
    this.maxBytes = options.maxBytes ?? 256 * 1024 * 1024;
    this.maxTaskBytes = options.maxTaskBytes ?? 16 * 1024 * 1024;
    this.now = options.now ?? Date.now;
    if (!(this.maxTasks >= 1)) throw new RangeError(`expected maxTasks >= 1, got ${options.maxTasks}`);
    if (!(this.maxBytes >= 1)) throw new RangeError(`expected maxBytes >= 1, got ${options.maxBytes}`);
    if (!(this.maxTaskBytes >= 1)) throw new RangeError(`expected maxTaskBytes >= 1, got ${options.maxTaskBytes}`);
    this.shares = new OwnerShares(options, this.maxTasks, this.maxBytes, refuseShare);
    this.sendKeys = new IdempotencyKeys({
      ttlMs: options.idempotencyTtlMs ?? 10 * 60_000,
      maxKeys: options.maxIdempotencyKeys ?? 10_000,
      now: this.now,
    });
  }

  /** Tasks and estimated bytes held now (for health checks and tests). */
  stats(): { tasks: number; bytes: number; maxBytes: number } {
    return { tasks: this.entries.size, bytes: this.bytes, maxBytes: this.maxBytes };
  }

  /**
   * Makes room for `growth` more bytes of the task at `k` (`terminal`: the write ends the task):
   * over the per-task cap the write is refused; over the budget the oldest terminal tasks other
   * than `k` are evicted, and with none left the write is refused.
   */
  private reserve(k: string, entryBytes: number, growth: number, terminal: boolean): void {
    if (growth <= 0) return;
    // A small final write always goes in, so a task at its limits can still end FAILED.
    const finalWrite = terminal && growth <= TERMINAL_SLACK_BYTES;
    if (entryBytes + growth > this.maxTaskBytes && !finalWrite) {
      throw new TaskStoreFullError('maxTaskBytes', `The task would hold more than ${this.maxTaskBytes} bytes`);
    }
    while (this.bytes + growth > this.maxBytes) {
      const victim = this.ended.oldest(k);
      if (victim === undefined) {
        if (finalWrite) return;
        throw new TaskStoreFullError('maxBytes', `The task store is full (${this.maxBytes} bytes); retry later`);
      }
      this.remove(victim);
    }
  }

  private expired(entry: Entry): boolean {
    return isTerminalTaskState(entry.record.task.status.state) && this.now() - entry.record.updatedAt > this.terminalTtlMs;
  }

  private live(key: TaskKey): Entry | undefined {
    const k = taskMapKey(key);
    const entry = this.entries.get(k);
    if (entry && this.expired(entry)) {
      this.remove(k);
      return undefined;
    }
    return entry;
  }

  private remove(k: string): void {
    const entry = this.entries.get(k);
    if (entry) {
      this.bytes -= entry.bytes;
      this.shares.charge(entry, -1);
    }
    this.entries.delete(k);
    this.terminal.delete(k);
  }

  private resize(entry: Entry, delta: number): void {
    entry.bytes += delta;
    this.bytes += delta;
  }

  /** Keeps the terminal index in step with a stored record. */
  private track(k: string, record: StoredTask): void {
    if (!isTerminalTaskState(record.task.status.state)) {
      this.terminal.delete(k);
      return;
    }
    this.terminal.set(k, record.updatedAt);
    this.ended.push(k, record.updatedAt);
  }

  /**
   * The retention sweep: drops terminal tasks past their TTL with their push configs (credentials
   * included); runs before every new task, call it to reclaim them sooner. `makeRoom` (a new task):
   * also evicts terminal tasks, oldest first, for one more, or throws `TaskStoreFullError`. O(1) amortised.
   */
  sweep(makeRoom = false): void {
    const now = this.now();
    for (
      let key = this.ended.oldest();
      key !== undefined && now - (this.terminal.get(key) as number) > this.terminalTtlMs;
      key = this.ended.oldest()
    ) {
      this.remove(key);
    }
    while (makeRoom && this.entries.size >= this.maxTasks) {
      const oldest = this.ended.oldest();
      if (oldest === undefined)
        throw new TaskStoreFullError('maxTasks', `The task store is full (${this.maxTasks} live tasks); retry later`);
      this.remove(oldest);
    }
    this.ended.compact(this.terminal.size);
  }

  /** Refuses as a create would now (count and byte budget, with terminal tasks evicted first). */
  async admitTask(request: TaskAdmission): Promise<void> {
    this.shares.check(request, 1, 0);
    this.sweep(true);
    this.reserve('', 0, 1, false);
  }

  async get(key: TaskKey): Promise<StoredTask | undefined> {
    const entry = this.live(key);
    return entry ? cloneStored(entry.record) : undefined;
  }

  async upsert(record: TaskRecord, options: TaskWriteOptions): Promise<number> {
    const key = { tenant: record.tenant, taskId: record.task.id };
    const k = taskMapKey(key);
    const existing = this.live(key);
    const stored = existing?.record.revision ?? 0;
    if (stored !== options.expectedRevision) throw new TaskRevisionConflictError(key, options.expectedRevision, stored);
    const revision = stored + 1;
    const copy = cloneStoredSized(record);
    // The copy is the store's own object: the revision goes on it, not on the caller's record.
    const value = copy.value as StoredTask;
    value.revision = revision;
    const terminal = isTerminalTaskState(value.task.status.state);
    if (existing) {
      const growth = copy.bytes - existing.recordBytes;
      // A task's final write always goes in; a live one grows only within its caller's share.
      if (!terminal) this.shares.check(value, 0, growth);
      this.reserve(k, existing.bytes, growth, terminal);
      this.shares.charge(existing, -1);
      existing.record = value;
      this.resize(existing, growth);
      existing.recordBytes = copy.bytes;
      this.shares.charge(existing, 1);
      this.track(k, existing.record);
      return revision;
    }
    if (!terminal) this.shares.check(value, 1, copy.bytes);
    this.sweep(true);
    this.reserve(k, 0, copy.bytes, terminal);
    const entry: Entry = {
      record: value,
      recordBytes: copy.bytes,
      push: undefined,
      bytes: 0,
    };
    this.entries.set(k, entry);
    this.resize(entry, copy.bytes);
    this.shares.charge(entry, 1);
    this.track(k, entry.record);
    return revision;
  }

  async list(query: TaskListQuery): Promise<TaskListPage | undefined> {
    return listPage(this.entries.values(), query, (entry) => !this.expired(entry));
  }

  async delete(key: TaskKey): Promise<boolean> {
    const k = taskMapKey(key);
    const existed = this.entries.has(k);
    this.remove(k);
    return existed;
  }

  async putPushConfig(key: TaskKey, config: StoredPushConfig): Promise<void> {
    const entry = this.live(key);
    if (!entry) return;
    const copy = cloneStoredSized(config);
    const previous = entry.push?.get(config.id)?.bytes ?? 0;
    if (!isTerminalTaskState(entry.record.task.status.state)) this.shares.check(entry.record, 0, copy.bytes - previous);
    this.reserve(taskMapKey(key), entry.bytes, copy.bytes - previous, false);
    entry.push ??= new Map();
    entry.push.set(config.id, { config: copy.value, bytes: copy.bytes });
    this.shares.grow(entry, copy.bytes - previous);
    this.resize(entry, copy.bytes - previous);
  }

  async listPushConfigs(key: TaskKey): Promise<StoredPushConfig[]> {
    return [...(this.live(key)?.push?.values() ?? [])].map((held) => cloneStored(held.config));
  }

  async deletePushConfig(key: TaskKey, id: string): Promise<boolean> {
    const entry = this.live(key);
    const held = entry?.push?.get(id);
    if (entry === undefined || held === undefined) return false;
    entry.push?.delete(id);
    this.shares.grow(entry, -held.bytes);
    this.resize(entry, -held.bytes);
    return true;
  }

  async claimSendKey(key: SendKey, taskId: string): Promise<string | undefined> {
    return this.sendKeys.claim(key, taskId);
  }

  async releaseSendKey(key: SendKey, taskId: string): Promise<void> {
    this.sendKeys.release(key, taskId);
  }
}

/** Makes the default task store (bounded, TTL expiry of terminal tasks, one process); see `InMemoryTaskStore`. */
export function createInMemoryTaskStore(options: InMemoryTaskStoreOptions = {}): InMemoryTaskStore {
  return new InMemoryTaskStore(options);
}
