import { isTerminalTaskState } from '@a2aplane/a2a-types';
import type { StoredTask } from './task-store.js';

/** A caller's live tasks and their bytes, as one store holds them. */
interface Usage {
  tasks: number;
  bytes: number;
}

/** Which per-caller cap a write would pass. */
export type ShareLimit = 'maxTasksPerOwner' | 'maxBytesPerOwner';

/** Per-caller share options, the same on every task store (in memory, Redis, PostgreSQL). */
export interface OwnerShareOptions {
  /**
   * Live tasks one caller (tenant and owner) may hold: its fair share, so one caller cannot get
   * every other refused. Beyond it its new tasks are refused (`TaskStoreFullError`, limit
   * `maxTasksPerOwner`). Default half of the store's `maxTasks`. `Infinity`: no share.
   */
  maxTasksPerOwner?: number;
  /** Bytes one caller's live tasks may hold together (limit `maxBytesPerOwner`). Default half of the store's `maxBytes`. `Infinity`: no share. */
  maxBytesPerOwner?: number;
}

/** The shares a store enforces (`Infinity`: none). */
export interface OwnerShareLimits {
  maxTasksPerOwner: number;
  maxBytesPerOwner: number;
}

/** The in-memory store's defaults, which the shares of a store without its own `maxTasks` / `maxBytes` are half of. */
export const DEFAULT_STORE_MAX_TASKS = 10_000;
export const DEFAULT_STORE_MAX_BYTES = 256 * 1024 * 1024;

/**
 * A store's per-caller shares from its options: half of its `maxTasks` and `maxBytes` (the
 * in-memory defaults when it has none) unless set by name (decision 0069). One resolution for
 * every store, so a share means the same thing on each backend.
 */
export function resolveOwnerShares(options: OwnerShareOptions, store: { maxTasks?: number; maxBytes?: number } = {}): OwnerShareLimits {
  const maxTasksPerOwner = options.maxTasksPerOwner ?? Math.max(1, Math.floor((store.maxTasks ?? DEFAULT_STORE_MAX_TASKS) / 2));
  const maxBytesPerOwner = options.maxBytesPerOwner ?? Math.max(1, Math.floor((store.maxBytes ?? DEFAULT_STORE_MAX_BYTES) / 2));
  if (!(maxTasksPerOwner >= 1)) throw new RangeError(`expected maxTasksPerOwner >= 1, got ${options.maxTasksPerOwner}`);
  if (!(maxBytesPerOwner >= 1)) throw new RangeError(`expected maxBytesPerOwner >= 1, got ${options.maxBytesPerOwner}`);
  return { maxTasksPerOwner, maxBytesPerOwner };
}

/** The message of a share refusal, the same from every store. */
export function ownerShareMessage(limit: ShareLimit, limits: OwnerShareLimits): string {
  return limit === 'maxTasksPerOwner'
    ? `This caller holds ${limits.maxTasksPerOwner} live tasks, its share of the store; retry when one ends`
    : `This caller's live tasks hold ${limits.maxBytesPerOwner} bytes, its share of the store; retry later`;
}

/** The caller a share belongs to: tenant and owner. */
const ownerKey = (who: { tenant: string; owner: string }): string => `${who.tenant}\u0000${who.owner}`;

/**
 * Per-caller shares of a store (issue 31): one caller's live tasks may fill only its share, so it
 * cannot get every other caller refused. Keyed by tenant and owner; only live (not terminal)
 * tasks count, since terminal ones are evicted to make room anyway. Defaults: half the store.
 */
export class OwnerShares {
  private readonly usage = new Map<string, Usage>();
  private readonly limits: OwnerShareLimits;

  constructor(
    options: OwnerShareOptions,
    storeTasks: number,
    storeBytes: number,
    private readonly refuse: (limit: ShareLimit, message: string) => never,
  ) {
    this.limits = resolveOwnerShares(options, { maxTasks: storeTasks, maxBytes: storeBytes });
  }

  /** Adds (`sign` 1) or takes away (-1) a stored entry's part of its caller's share (live entries only). */
  charge(entry: { record: StoredTask; bytes: number }, sign: 1 | -1): void {
    if (isTerminalTaskState(entry.record.task.status.state)) return;
    const owner = ownerKey(entry.record);
    const usage = this.usage.get(owner) ?? { tasks: 0, bytes: 0 };
    usage.tasks += sign;
    usage.bytes += sign * entry.bytes;
    if (usage.tasks <= 0) this.usage.delete(owner);
    else this.usage.set(owner, usage);
  }

  /** A live entry's bytes change by `delta` (call before the entry's own count changes). */
  grow(entry: { record: StoredTask }, delta: number): void {
    const usage = isTerminalTaskState(entry.record.task.status.state) ? undefined : this.usage.get(ownerKey(entry.record));
    if (usage) usage.bytes += delta;
  }

  /** Refuses (through `refuse`) `tasks` more live tasks and `bytes` more bytes of `who` beyond its share. */
  check(who: { tenant: string; owner: string }, tasks: number, bytes: number): void {
    const usage = this.usage.get(ownerKey(who));
    if ((usage?.tasks ?? 0) + tasks > this.limits.maxTasksPerOwner)
      this.refuse('maxTasksPerOwner', ownerShareMessage('maxTasksPerOwner', this.limits));
    if (bytes > 0 && (usage?.bytes ?? 0) + bytes > this.limits.maxBytesPerOwner)
      this.refuse('maxBytesPerOwner', ownerShareMessage('maxBytesPerOwner', this.limits));
  }
}
