import { isTerminalTaskState } from '@a2aplane/a2a-types';
import { cloneStored, cloneStoredSized } from './clone.js';
import { type HeldTask, HeldTasks } from './held-tasks.js';
import { TaskStoreFullError } from './task-store-full.js';
import { listPage } from './list-page.js';
import { IdempotencyKeys } from './idempotency-keys.js';
import { type OwnerShareOptions, OwnerShares, type ShareLimit } from './owner-shares.js';
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

export { TaskStoreFullError } from './task-store-full.js';

/** Per-caller shares (`maxTasksPerOwner`, `maxBytesPerOwner`): half of `maxTasks` and `maxBytes` by default. */
export interface InMemoryTaskStoreOptions extends OwnerShareOptions {
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
  /** How long a SendMessage key (tenant, caller, messageId) is remembered. Default 10 minutes. */
  idempotencyTtlMs?: number;
  /** Most SendMessage keys kept; beyond it the oldest is forgotten. Default 10 000. */
  maxIdempotencyKeys?: number;
  /** Clock, for tests. */
  now?: () => number;
}

const refuseShare = (limit: ShareLimit, message: string): never => {
  throw new TaskStoreFullError(limit, message);
};

/**
 * The default store: a bounded map with TTL expiry of terminal tasks. Not shared between processes.
 * Made by `createInMemoryTaskStore`.
 */
class BoundedTaskStore implements TaskStore {
  /** The tasks held, within their count and byte budgets. */
  private readonly held: HeldTasks;
  private readonly sendKeys: IdempotencyKeys;
  private readonly shares: OwnerShares;

  constructor(options: InMemoryTaskStoreOptions = {}) {
    const limits = {
      terminalTtlMs: options.terminalTtlMs ?? 10 * 60_000,
      maxTasks: options.maxTasks ?? 10_000,
      maxBytes: options.maxBytes ?? 256 * 1024 * 1024,
      maxTaskBytes: options.maxTaskBytes ?? 16 * 1024 * 1024,
      now: options.now ?? Date.now,
    };
    if (!(limits.maxTasks >= 1)) throw new RangeError(`expected maxTasks >= 1, got ${options.maxTasks}`);
    if (!(limits.maxBytes >= 1)) throw new RangeError(`expected maxBytes >= 1, got ${options.maxBytes}`);
    if (!(limits.maxTaskBytes >= 1)) throw new RangeError(`expected maxTaskBytes >= 1, got ${options.maxTaskBytes}`);
    this.shares = new OwnerShares(options, limits.maxTasks, limits.maxBytes, refuseShare);
    this.held = new HeldTasks(limits, this.shares);
    this.sendKeys = new IdempotencyKeys({
      ttlMs: options.idempotencyTtlMs ?? 10 * 60_000,
      maxKeys: options.maxIdempotencyKeys ?? 10_000,
      now: limits.now,
    });
  }

  /** Tasks and estimated bytes held now (for health checks and tests). */
  stats(): { tasks: number; bytes: number; maxBytes: number } {
    return this.held.stats();
  }

  /**
   * The retention sweep: drops terminal tasks past their TTL with their push configs (credentials
   * included). It runs before every new task; call it to reclaim them sooner.
   */
  sweep(): void {
    this.held.sweep();
  }

  /** Refuses as a create would now (count and byte budget, with terminal tasks evicted first). */
  async admitTask(request: TaskAdmission): Promise<void> {
    // One byte: a caller already at its byte share starts nothing.
    this.shares.check(request, 1, 1);
    this.held.sweep(true);
    this.held.reserve('', 0, 1, false);
  }

  async get(key: TaskKey): Promise<StoredTask | undefined> {
    const entry = this.held.live(key);
    return entry ? cloneStored(entry.record) : undefined;
  }

  async upsert(record: TaskRecord, options: TaskWriteOptions): Promise<number> {
    const key = { tenant: record.tenant, taskId: record.task.id };
    const k = taskMapKey(key);
    const existing = this.held.live(key);
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
      this.held.reserve(k, existing.bytes, growth, terminal);
      this.shares.charge(existing, -1);
      existing.record = value;
      this.held.resize(existing, growth);
      existing.recordBytes = copy.bytes;
      this.shares.charge(existing, 1);
      this.held.track(k, existing.record);
      return revision;
    }
    if (!terminal) this.shares.check(value, 1, copy.bytes);
    this.held.sweep(true);
    this.held.reserve(k, 0, copy.bytes, terminal);
    const entry: HeldTask = {
      record: value,
      recordBytes: copy.bytes,
      push: undefined,
      bytes: 0,
    };
    this.held.entries.set(k, entry);
    this.held.resize(entry, copy.bytes);
    this.shares.charge(entry, 1);
    this.held.track(k, entry.record);
    return revision;
  }

  async list(query: TaskListQuery): Promise<TaskListPage | undefined> {
    return listPage(this.held.entries.values(), query, (entry) => !this.held.expired(entry));
  }

  async delete(key: TaskKey): Promise<boolean> {
    const k = taskMapKey(key);
    const existed = this.held.entries.has(k);
    this.held.remove(k);
    return existed;
  }

  async putPushConfig(key: TaskKey, config: StoredPushConfig): Promise<void> {
    const entry = this.held.live(key);
    if (!entry) return;
    const copy = cloneStoredSized(config);
    const previous = entry.push?.get(config.id)?.bytes ?? 0;
    if (!isTerminalTaskState(entry.record.task.status.state)) this.shares.check(entry.record, 0, copy.bytes - previous);
    this.held.reserve(taskMapKey(key), entry.bytes, copy.bytes - previous, false);
    entry.push ??= new Map();
    entry.push.set(config.id, { config: copy.value, bytes: copy.bytes });
    this.shares.grow(entry, copy.bytes - previous);
    this.held.resize(entry, copy.bytes - previous);
  }

  async listPushConfigs(key: TaskKey): Promise<StoredPushConfig[]> {
    return [...(this.held.live(key)?.push?.values() ?? [])].map((held) => cloneStored(held.config));
  }

  async deletePushConfig(key: TaskKey, id: string): Promise<boolean> {
    const entry = this.held.live(key);
    const held = entry?.push?.get(id);
    if (entry === undefined || held === undefined) return false;
    entry.push?.delete(id);
    this.shares.grow(entry, -held.bytes);
    this.held.resize(entry, -held.bytes);
    return true;
  }

  async claimSendKey(key: SendKey, taskId: string): Promise<string | undefined> {
    return this.sendKeys.claim(key, taskId);
  }

  async releaseSendKey(key: SendKey, taskId: string): Promise<void> {
    this.sendKeys.release(key, taskId);
  }
}

/** The default task store (one process). Made by `createInMemoryTaskStore`. */
export type InMemoryTaskStore = BoundedTaskStore;
/** @deprecated use `createInMemoryTaskStore`; the class stays for one minor release. */
export const InMemoryTaskStore: typeof BoundedTaskStore = BoundedTaskStore;

/** Makes the default task store (bounded, TTL expiry of terminal tasks, one process); see `InMemoryTaskStore`. */
export function createInMemoryTaskStore(options: InMemoryTaskStoreOptions = {}): InMemoryTaskStore {
  return new BoundedTaskStore(options);
}
