/**
 * The executor's `AbortSignal`, made on first read. It aborts on `abort()` (cancel, server close)
 * and when a followed signal (the governor's, an in-process caller's) aborts; a reason set before
 * the signal exists is there when it is made. Followed signals get a listener only once the
 * signal exists, and `unfollow()` removes it when the task ends (a signal first read after that
 * follows nothing).
 */
export class ExecutionSignal {
  private controller: AbortController | undefined;
  private pending: { reason: unknown } | undefined;
  private onSourceAbort: ((event: Event) => void) | undefined;
  private ended = false;

  /** At most two sources (the governor's and the caller's signal): fields, not an array. */
  constructor(
    private readonly first: AbortSignal | undefined,
    private readonly second: AbortSignal | undefined,
  ) {}

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      const controller = new AbortController();
      this.controller = controller;
      const early = this.pending ?? this.sourceAbort();
      if (early !== undefined) {
        controller.abort(early.reason);
      } else if (!this.ended && (this.first !== undefined || this.second !== undefined)) {
        const onSourceAbort = (event: Event): void => this.abort((event.target as AbortSignal).reason);
        this.onSourceAbort = onSourceAbort;
        this.first?.addEventListener('abort', onSourceAbort, { once: true });
        this.second?.addEventListener('abort', onSourceAbort, { once: true });
      }
    }
    return this.controller.signal;
  }

  /** Whether the run was told to stop (cancel, a limit, close), without making the signal. */
  get aborted(): boolean {
    if (this.controller !== undefined) return this.controller.signal.aborted;
    return this.pending !== undefined || this.sourceAbort() !== undefined;
  }

  abort(reason: unknown): void {
    if (this.controller !== undefined) {
      if (!this.controller.signal.aborted) this.controller.abort(reason);
      return;
    }
    // Not made yet: remember the first reason (a source that aborted earlier wins).
    this.pending ??= this.sourceAbort() ?? { reason };
  }

  /** Stops following the sources (the task ended). */
  unfollow(): void {
    this.ended = true;
    const onSourceAbort = this.onSourceAbort;
    if (onSourceAbort === undefined) return;
    this.onSourceAbort = undefined;
    this.first?.removeEventListener('abort', onSourceAbort);
    this.second?.removeEventListener('abort', onSourceAbort);
  }

  private sourceAbort(): { reason: unknown } | undefined {
    if (this.first?.aborted) return { reason: this.first.reason };
    if (this.second?.aborted) return { reason: this.second.reason };
    return undefined;
  }
}
