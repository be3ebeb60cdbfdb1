import { type A2ARequestMap, isTerminalTaskState, type Task, TaskNotCancelableError } from '@a2aplane/a2a-types';
import type { TaskRuntime } from './task-runtime.js';
import type { Caller } from './caller.js';
import type { ServerContext } from './server-context.js';
import type { TaskRegistry } from './task-registry.js';

/** How long a CancelTask waits for the replica running the task to end it before it writes CANCELED itself. */
const RUNNER_CANCEL_WAIT_MS = 30_000;

/** CancelTask and an in-process caller's abort: one path to stop a run and end its task CANCELED. */
export function createTaskCanceller(ctx: ServerContext, registry: TaskRegistry) {
  const { options, store, bus, sharedBus, onError } = ctx;
  const { releaseIfIdle, runtimeFor } = registry;
  const cancels = new WeakMap<TaskRuntime, Promise<void>>();

  /**
   * Stops a running execution (its signal, then `executor.cancel`) and publishes CANCELED unless
   * the task is terminal by then. One path for CancelTask and an in-process caller's abort.
   */
  function cancelRuntime(runtime: TaskRuntime, metadata?: Record<string, unknown>): Promise<void> {
    // One cancel at a time per runtime: a caller abort and a CancelTask share it.
    let running = cancels.get(runtime);
    if (running === undefined) {
      running = cancelOnce(runtime, metadata).finally(() => cancels.delete(runtime));
      cancels.set(runtime, running);
    }
    return running;
  }

  async function cancelOnce(runtime: TaskRuntime, metadata: Record<string, unknown> | undefined): Promise<void> {
    const hook = runtime.run;
    if (hook) {
      hook.signal.abort(new TaskNotCancelableError({ message: 'The task was canceled' }));
      if (options.executor.cancel) {
        try {
          await options.executor.cancel(hook.context, hook.sink);
        } catch (error) {
          onError('executor cancel failed', error);
        }
      }
    }
    await runtime.enqueue(async () => {
      const current = runtime.task;
      if (!current || isTerminalTaskState(current.status.state)) return;
      await runtime.apply({
        statusUpdate: {
          taskId: current.id,
          contextId: current.contextId ?? runtime.contextId,
          status: { state: 'TASK_STATE_CANCELED', timestamp: new Date().toISOString() },
          ...(metadata ? { metadata } : {}),
        },
      });
    });
  }

  /**
   * Asks the replica running the task (if any) to cancel it, and waits for the end of its run.
   * True when the task is terminal now (`runtime` then holds it as stored); false when no replica
   * runs it, or its run ended without reaching a terminal state: the caller ends it itself.
   */
  async function cancelThroughRunner(runtime: TaskRuntime, metadata: Record<string, unknown> | undefined): Promise<boolean> {
    // Subscribed before the request, so the runner's final event cannot slip past.
    const subscription = await bus.subscribe(runtime.key, { signal: AbortSignal.timeout(RUNNER_CANCEL_WAIT_MS) });
    if (subscription === undefined) return false;
    try {
      if (!(await bus.requestCancel(runtime.key, metadata ? { metadata } : {}))) return false;
      for await (const _event of subscription) {
        // The subscription ends with the task's final event (or the wait's timeout).
      }
    } finally {
      subscription.close();
    }
    const record = await store.get(runtime.key);
    if (record === undefined) return false;
    runtime.adopt(record);
    return isTerminalTaskState(record.task.status.state);
  }

  async function cancelTask(params: A2ARequestMap['CancelTask'], caller: Caller): Promise<Task> {
    const key = { tenant: params.tenant ?? '', taskId: params.id };
    const runtime = await runtimeFor(key, caller);
    try {
      const task = runtime.task as Task;
      // Spec §3.1.5 and the §3.3.2 table: a task in any terminal state, CANCELED included, is not cancelable.
      if (isTerminalTaskState(task.status.state)) throw new TaskNotCancelableError({ metadata: { taskId: task.id } });
      // Not running here: it may run on another replica, which then cancels it; else it is ended here.
      const endedByRunner = sharedBus && !runtime.running && (await cancelThroughRunner(runtime, params.metadata));
      if (!endedByRunner) await cancelRuntime(runtime, params.metadata);
      const final = runtime.task as Task;
      if (final.status.state !== 'TASK_STATE_CANCELED') throw new TaskNotCancelableError({ metadata: { taskId: final.id } });
      return final;
    } finally {
      releaseIfIdle(runtime);
    }
  }

  return { cancelRuntime, cancelTask };
}
