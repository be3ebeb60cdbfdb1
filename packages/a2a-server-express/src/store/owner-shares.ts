/** A caller's live tasks and their bytes, as one store holds them. */
interface Usage {
  tasks: number;
  bytes: number;
}

/** Which per-caller cap a write would pass. */
export type ShareLimit = 'maxTasksPerOwner' | 'maxBytesPerOwner';

/**
 * Per-caller shares of a store (issue 31): one caller's live tasks may fill only its share, so it
 * cannot get every other caller refused. Keyed by tenant and owner; only live (not terminal)
 * tasks count, since terminal ones are evicted to make room anyway.
 */
export class OwnerShares {
  private readonly usage = new Map<string, Usage>();

  constructor(
    readonly maxTasks: number,
    readonly maxBytes: number,
  ) {}

  /** Adds (`sign` 1) or takes away (-1) one live task of `bytes`. */
  charge(owner: string, sign: 1 | -1, bytes: number): void {
    const usage = this.usage.get(owner) ?? { tasks: 0, bytes: 0 };
    usage.tasks += sign;
    usage.bytes += sign * bytes;
    if (usage.tasks <= 0) this.usage.delete(owner);
    else this.usage.set(owner, usage);
  }

  /** The cap `tasks` more live tasks and `bytes` more bytes of `owner` would pass, if any. */
  exceeded(owner: string, tasks: number, bytes: number): ShareLimit | undefined {
    const usage = this.usage.get(owner);
    if ((usage?.tasks ?? 0) + tasks > this.maxTasks) return 'maxTasksPerOwner';
    if (bytes > 0 && (usage?.bytes ?? 0) + bytes > this.maxBytes) return 'maxBytesPerOwner';
    return undefined;
  }
}
