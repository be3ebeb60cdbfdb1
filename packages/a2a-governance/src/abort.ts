let never: AbortSignal | undefined;

/**
 * A signal that never aborts, shared: tasks without mid-task limits need no controller of their own
 * (a task says it holds this one with `GovernedTask.signalNeverAborts`, so a runner skips listening).
 */
export function neverAbortedSignal(): AbortSignal {
  never ??= new AbortController().signal;
  return never;
}

export interface LinkedSignal {
  readonly signal: AbortSignal;
  /** Stops following the sources (call it when the task ends, so long-lived sources do not leak listeners). */
  unlink(): void;
}

/**
 * One signal that aborts when any source does, with that source's reason. Creating an
 * AbortController and listeners is the dominant cost of a governed dispatch in Node, so zero
 * sources give the shared never-aborting signal and one source is passed through as it is.
 */
export function linkAbortSignals(sources: readonly (AbortSignal | undefined)[]): LinkedSignal {
  const live = sources.filter((source): source is AbortSignal => source !== undefined && source !== never);
  if (live.length === 0) return { signal: neverAbortedSignal(), unlink: () => undefined };
  if (live.length === 1) return { signal: live[0]!, unlink: () => undefined };
  const controller = new AbortController();
  const onAbort = (event: Event): void => {
    if (!controller.signal.aborted) controller.abort((event.target as AbortSignal).reason);
  };
  for (const source of live) {
    if (source.aborted) {
      if (!controller.signal.aborted) controller.abort(source.reason);
    } else source.addEventListener('abort', onAbort, { once: true });
  }
  return {
    signal: controller.signal,
    unlink: () => {
      for (const source of live) source.removeEventListener('abort', onAbort);
    },
  };
}
