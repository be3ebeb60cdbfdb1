import type { TaskKey } from '@a2aplane/a2a-server-express';
import type { TaskEntry } from './lease-commands.js';

/**
 * Removals from a replica's task set of the tasks whose run ended here: the removals of one turn
 * of the event loop go out together after it (a burst of task ends is one script, not one each),
 * and a failed one is retried on the next heartbeat unless the task runs here again by then.
 */
export class TaskSetRemovals {
  /** Removals of this turn, sent together. */
  private readonly batch = new Map<string, TaskKey>();
  /** Refs whose removal failed: retried by `retry`. */
  private readonly failed = new Map<string, TaskKey>();
  private flushing: NodeJS.Immediate | undefined;
  private closed = false;

  constructor(
    /** Sends one batch (the UNREGISTER script). */
    private readonly send: (tasks: TaskEntry[]) => Promise<unknown>,
    /** Whether `ref` runs here again (then its failed removal is not retried). */
    private readonly runsHere: (ref: string) => boolean,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** The run of `ref` ended: remove it after this turn. */
  add(ref: string, key: TaskKey): void {
    this.batch.set(ref, key);
    if (this.flushing !== undefined || this.closed) return;
    this.flushing = setImmediate(() => this.flush());
  }

  /** `ref` runs here (again): none of its removals may go out. */
  forget(ref: string): void {
    this.failed.delete(ref);
    this.batch.delete(ref);
  }

  /** Sends the removals that failed; rejects (keeping them) when this fails too. */
  async retry(): Promise<void> {
    const failed = [...this.failed];
    if (failed.length === 0) return;
    await this.send(failed);
    for (const [ref] of failed) this.failed.delete(ref);
  }

  close(): void {
    this.closed = true;
    if (this.flushing !== undefined) clearImmediate(this.flushing);
    this.flushing = undefined;
  }

  private flush(): void {
    this.flushing = undefined;
    const batch = [...this.batch];
    this.batch.clear();
    if (batch.length > 0)
      void this.send(batch).catch((error: unknown) => {
        for (const [ref, key] of batch) if (!this.runsHere(ref)) this.failed.set(ref, key);
        this.onError(error);
      });
  }
}
