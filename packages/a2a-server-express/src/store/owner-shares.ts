import { isTerminalTaskState } from '@a2aplane/a2a-types';
import type { StoredTask } from './task-store.js';

/** A caller's live tasks and their bytes, as one store holds them. */
interface Usage {
  tasks: number;
  bytes: number;
}

/** Which per-caller cap a write would pass. */
export type ShareLimit = 'maxTasksPerOwner' | 'maxBytesPerOwner';

/** The caller a share belongs to: tenant and owner. */
const ownerKey = (who: { tenant: string; owner: string }): string => `${who.tenant}\u0000${who.owner}`;

/**
 * Per-caller shares of a store (issue 31): one caller's live tasks may fill only its share, so it
 * cannot get every other caller refused. Keyed by tenant and owner; only live (not terminal)
 * tasks count, since terminal ones are evicted to make room anyway. Defaults: half the store.
 */
export class OwnerShares {
  private readonly usage = new Map<string, Usage>();
  readonly maxTasks: number;
  readonly maxBytes: number;

  constructor(
    options: { maxTasksPerOwner?: number; maxBytesPerOwner?: number },
    storeTasks: number,
    storeBytes: number,
    private readonly refuse: (limit: ShareLimit, message: string) => never,
  ) {
    this.maxTasks = options.maxTasksPerOwner ?? Math.max(1, Math.floor(storeTasks / 2));
    this.maxBytes = options.maxBytesPerOwner ?? Math.max(1, Math.floor(storeBytes / 2));
    if (!(this.maxTasks >= 1)) throw new RangeError(`expected maxTasksPerOwner >= 1, got ${options.maxTasksPerOwner}`);
    if (!(this.maxBytes >= 1)) throw new RangeError(`expected maxBytesPerOwner >= 1, got ${options.maxBytesPerOwner}`);
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
    if ((usage?.tasks ?? 0) + tasks > this.maxTasks)
      this.refuse('maxTasksPerOwner', `This caller holds ${this.maxTasks} live tasks, its share of the store; retry when one ends`);
    if (bytes > 0 && (usage?.bytes ?? 0) + bytes > this.maxBytes)
      this.refuse('maxBytesPerOwner', `This caller's live tasks hold ${this.maxBytes} bytes, its share of the store; retry later`);
  }
}
