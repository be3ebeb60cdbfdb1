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
  private following = false;
  private ended = false;
  private readonly sources: AbortSignal[] = [];
  private readonly onSourceAbort = (event: Event): void => {
    this.abort((event.target as AbortSignal).reason);
  };

  constructor(...sources: (AbortSignal | undefined)[]) {
    for (const source of sources) if (source !== undefined) this.sources.push(source);
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      const controller = new AbortController();
      this.controller = controller;
      const early = this.pending ?? this.sourceAbort();
      if (early !== undefined) {
        controller.abort(early.reason);
      } else if (!this.ended) {
        this.following = true;
        for (const source of this.sources) source.addEventListener('abort', this.onSourceAbort, { once: true });
      }
    }
    return this.controller.signal;
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
    if (!this.following) return;
    this.following = false;
    for (const source of this.sources) source.removeEventListener('abort', this.onSourceAbort);
  }

  private sourceAbort(): { reason: unknown } | undefined {
    for (const source of this.sources) if (source.aborted) return { reason: source.reason };
    return undefined;
  }
}
