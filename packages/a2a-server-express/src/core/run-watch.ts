import { A2AError, isTerminalTaskState } from '@a2aplane/a2a-types';
import type { Run } from './run.js';
import type { ServerContext } from './server-context.js';
import type { TaskRuntime } from './task-runtime.js';

/**
 * What ends a run from outside, whatever the executor does with its signal: a governance limit
 * (`POLICY_VIOLATION`, `BUDGET_EXCEEDED`) ends the task FAILED with that ErrorInfo in its status
 * message; an in-process caller that aborts (a dispatcher's local executor) cancels it, as
 * CancelTask would, and so does a CancelTask that lands on another replica.
 */
export function createRunWatch(
  ctx: ServerContext,
  cancelRuntime: (runtime: TaskRuntime, metadata?: Record<string, unknown>) => Promise<void>,
) {
  const { bus, sharedBus, onError } = ctx;

  /** Watches `run` of `runtime` until the returned function is called. */
  function watchRun(runtime: TaskRuntime, run: Run): () => void {
    const caller = run.callerSignal;
    // A governed task without mid-task limits holds a signal that never aborts: listening to it
    // per task would cost a listener for nothing.
    const limits = run.governed === undefined || run.governed.signalNeverAborts === true ? undefined : run.governed.signal;
    const onLimit = (): void => {
      // The governed signal also follows the caller's: a caller abort is a cancel, not a failure.
      if (caller?.aborted) return;
      endForLimit(runtime, limits?.reason);
    };
    const onCaller = (): void => {
      // Already ended (say, canceled through `cancel` just before the caller's signal followed).
      if (runtime.task && isTerminalTaskState(runtime.task.status.state)) return;
      void cancelRuntime(runtime).catch((error: unknown) => onError('canceling a task on caller abort failed', error));
    };
    if (caller?.aborted) onCaller();
    else if (limits?.aborted) onLimit();
    limits?.addEventListener('abort', onLimit);
    caller?.addEventListener('abort', onCaller);
    // A CancelTask that lands on another replica reaches this one, the runner, through the bus
    // (a bus of this server alone has no other replica to hear from).
    const stopCancels = sharedBus
      ? bus.onCancel(runtime.key, (request) => {
          void cancelRuntime(runtime, request.metadata).catch((error: unknown) => onError('canceling a task on request failed', error));
        })
      : undefined;
    return () => {
      limits?.removeEventListener('abort', onLimit);
      caller?.removeEventListener('abort', onCaller);
      stopCancels?.();
    };
  }

  /**
   * A governance limit (`POLICY_VIOLATION`, `BUDGET_EXCEEDED`; other reasons are ignored) stops
   * the executor and ends the task FAILED, once.
   */
  function endForLimit(runtime: TaskRuntime, reason: unknown): void {
    if (!A2AError.isInstance(reason) || (reason.reason !== 'POLICY_VIOLATION' && reason.reason !== 'BUDGET_EXCEEDED')) return;
    if (runtime.task && isTerminalTaskState(runtime.task.status.state)) return;
    const run = runtime.run;
    run?.signal.abort(reason);
    const contextId = run?.context.contextId ?? runtime.contextId;
    void runtime
      .enqueue(() => runtime.failWith(reason, contextId))
      .catch((error: unknown) => onError('ending a task on a limit failed', error));
  }

  /** A meter call's budget cut, or a promise of it from a shared ledger: ends the task as a limit does. */
  function endForCut(runtime: TaskRuntime, cut: unknown): void {
    if (cut instanceof Promise)
      void cut.then(
        (settled: unknown) => endForLimit(runtime, settled),
        () => undefined,
      );
    else endForLimit(runtime, cut);
  }

  return { watchRun, endForCut };
}
