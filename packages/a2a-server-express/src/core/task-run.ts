import {
  isTerminalTaskState,
  PushNotificationNotSupportedError,
  type SendMessageRequest,
  type Task,
  UnsupportedOperationError,
  InvalidParamsError,
} from '@a2aplane/a2a-types';
import { newId } from '../agent/new-id.js';
import { TaskRevisionConflictError } from '../store/task-store.js';
import type { Caller } from './caller.js';
import { createRunAdmission } from './governance-admission.js';
import { type ExecutionExtra, NO_EXTRA, type Run } from './run.js';
import { createRunFactory } from './create-run.js';
import { createRunWatch } from './run-watch.js';
import type { ServerContext } from './server-context.js';
import type { TaskRegistry } from './task-registry.js';
import { type Listener, TaskRuntime } from './task-runtime.js';

interface StartedExecution {
  runtime: TaskRuntime;
  detach: () => void;
}

/** What a run needs from the other parts of the server. */
interface TaskRunHooks {
  cancelRuntime(runtime: TaskRuntime, metadata?: Record<string, unknown>): Promise<void>;
  vetWebhookUrl(url: string): Promise<void>;
}

/**
 * Starting a run of a task: capability checks, the task's runtime, admission (skill scopes,
 * governance), then the executor in the background, and its end (the run, governance, observers).
 */
export function createTaskRun(ctx: ServerContext, registry: TaskRegistry, hooks: TaskRunHooks) {
  const { options, card, store, deps, onError } = ctx;
  const instrumentation = options.instrumentation;
  const { runtimes, releaseIfIdle, sweepIdle, runtimeFor } = registry;
  const { admitRun } = createRunAdmission(ctx);
  const { watchRun, endForCut } = createRunWatch(ctx, hooks.cancelRuntime);
  const createRun = createRunFactory(endForCut);

  /**
   * Starts (or continues) a task: capability checks, governance admission, then the executor
   * in the background. The returned runtime already has `listener` attached, so no event is missed.
   */
  async function startExecution(
    params: SendMessageRequest,
    caller: Caller,
    listener: Listener,
    extra: ExecutionExtra = NO_EXTRA,
  ): Promise<StartedExecution> {
    try {
      const runtime = await runtimeOf(params, caller, extra);
      const admitting = admitRun(params, caller, extra.context, extra.signal);
      const admission = admitting instanceof Promise ? await admitting : admitting;
      try {
        return await launch(runtime, createRun(params, caller, runtime, admission, extra), listener);
      } catch (error) {
        await admission.governed?.finish({}).catch(() => undefined);
        throw error;
      }
    } catch (error) {
      sweepIdle();
      throw error;
    }
  }

  /** The runtime of the task the message continues (checked it can), or of a new task the store admits. */
  async function runtimeOf(params: SendMessageRequest, caller: Caller, extra: ExecutionExtra): Promise<TaskRuntime> {
    const tenant = params.tenant ?? '';
    const message = params.message;
    const inlinePush = params.configuration?.taskPushNotificationConfig;
    if (inlinePush && !card.capabilities.pushNotifications) throw new PushNotificationNotSupportedError();
    if (inlinePush) await hooks.vetWebhookUrl(inlinePush.url);
    if (!message.taskId) {
      // A store that would refuse the task refuses it here, before governance counts it and before anything runs.
      await store.admitTask?.({ tenant, owner: caller.owner });
      return new TaskRuntime({ tenant, taskId: extra.taskId ?? newId() }, caller.owner, message.contextId ?? newId(), deps);
    }
    const runtime = await runtimeFor({ tenant, taskId: message.taskId }, caller);
    const existing = runtime.task as Task;
    if (isTerminalTaskState(existing.status.state)) {
      throw new UnsupportedOperationError({
        message: 'The task is in a terminal state and cannot accept messages',
        metadata: { taskId: existing.id },
      });
    }
    if (runtime.running) throw new UnsupportedOperationError({ message: 'The task is still running', metadata: { taskId: existing.id } });
    if (message.contextId && existing.contextId && message.contextId !== existing.contextId) {
      throw new InvalidParamsError({ message: 'message.contextId does not match the task' });
    }
    return runtime;
  }

  async function launch(runtime: TaskRuntime, run: Run, listener: Listener): Promise<StartedExecution> {
    runtimes.set(runtime.mapKey, runtime);
    let detach: () => void;
    try {
      const begun = runtime.beginRun(run, listener);
      detach = typeof begun === 'function' ? begun : await begun;
    } catch (error) {
      // Another replica wrote the task since it was read: it runs there (or was just ended).
      if (TaskRevisionConflictError.isInstance(error))
        throw new UnsupportedOperationError({ message: 'The task is still running', metadata: { taskId: runtime.key.taskId } });
      throw error;
    }
    const stopWatching = watchRun(runtime, run);
    // `execute` catches everything itself; the catch here is the last line against an unhandled rejection.
    execute(runtime, run, stopWatching).catch((error: unknown) => onError('task execution failed', error));
    return { runtime, detach };
  }

  /** Runs the executor in the background, then ends the task's run and settles governance. */
  async function execute(runtime: TaskRuntime, run: Run, stopWatching: () => void): Promise<void> {
    let failure: unknown;
    const observer = instrumentation?.execution(run.context);
    try {
      if (observer === undefined) await options.executor.execute(run.context, run.sink);
      else await observer.run(() => options.executor.execute(run.context, run.sink));
    } catch (error) {
      failure = error;
      onError('executor failed', error);
    }
    // When the store refused even the final write, the run still ends and whoever waits hears why.
    const endFailure = await runtime.endRun(failure);
    if (endFailure !== undefined) onError('ending the task failed', endFailure);
    stopWatching();
    run.signal.unfollow();
    if (run.governed) {
      try {
        await run.governed.finish({ tokens: run.usage.tokens, usd: run.usage.usd });
      } catch (error) {
        onError('governance finish failed', error);
      }
    }
    if (observer !== undefined) {
      const outcome = { task: runtime.task, message: runtime.messageResponse !== undefined, usage: run.usage };
      observer.end(failure === undefined ? outcome : { ...outcome, error: failure });
    }
    releaseIfIdle(runtime);
  }

  return { startExecution };
}

export type TaskRun = ReturnType<typeof createTaskRun>;
