import {
  A2AError,
  InternalError,
  InvalidAgentResponseError,
  InvalidParamsError,
  isTerminalTaskState,
  isTraceId,
  type Message,
  PushNotificationNotSupportedError,
  type SendMessageRequest,
  type Task,
  UnsupportedOperationError,
} from '@a2aplane/a2a-types';
import type { EventSink, RequestContext, TaskContextLike } from '../agent/executor.js';
import { TaskRevisionConflictError } from '../store/task-store.js';
import { ExecutionSignal } from './execution-signal.js';
import { ExecutorRequestContext } from './request-context.js';
import { type Listener, TaskRuntime } from './task-runtime.js';
import type { GovernanceOptions, GovernedTaskLike } from './server-types.js';
import { type Caller, toA2AError } from './caller.js';
import type { ServerContext } from './server-context.js';
import type { TaskRegistry } from './task-registry.js';
import { newId } from '../agent/new-id.js';
import { checkScopes, compileSkillScopeRules } from '../auth/skill-scopes.js';

export interface ExecutionExtra {
  context?: TaskContextLike;
  signal?: AbortSignal;
  /** The id of a new task, claimed with its send key before the task starts. */
  taskId?: string;
}
export const NO_EXTRA: ExecutionExtra = {};

interface StartedExecution {
  runtime: TaskRuntime;
  detach: () => void;
}

/** The brand a2a-governance puts on its shared never-aborting signal. */
const NEVER_ABORTS = Symbol.for('@a2aplane/a2a-governance/neverAborts');

/** What a run needs from the other parts of the server. */
interface TaskRunHooks {
  cancelRuntime(runtime: TaskRuntime, metadata?: Record<string, unknown>): Promise<void>;
  vetWebhookUrl(url: string): Promise<void>;
}

/**
 * The run lifecycle of a task: governance admission, the executor in the background, limits and
 * caller aborts that end it, and the end of the run.
 */
export function createTaskRun(ctx: ServerContext, registry: TaskRegistry, hooks: TaskRunHooks) {
  const { options, card, store, bus, sharedBus, deps, onError } = ctx;
  const scopeRules = compileSkillScopeRules(options.skillScopeRules);
  const instrumentation = options.instrumentation;
  const { runtimes, releaseIfIdle, sweepIdle, runtimeFor } = registry;
  const { cancelRuntime, vetWebhookUrl } = hooks;
  const governance = options.governance;
  function chooseSkill(params: SendMessageRequest): string | undefined {
    const custom = options.resolveSkill?.(params);
    if (custom) return custom;
    const fromMetadata = params.message.metadata?.skillId;
    if (typeof fromMetadata === 'string' && fromMetadata !== '') return fromMetadata;
    return card.skills[0]?.id;
  }

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
      return await admitAndLaunch(params, caller, listener, extra);
    } catch (error) {
      sweepIdle();
      throw error;
    }
  }

  async function admitAndLaunch(
    params: SendMessageRequest,
    caller: Caller,
    listener: Listener,
    extra: ExecutionExtra,
  ): Promise<StartedExecution> {
    const tenant = params.tenant ?? '';
    const message = params.message;
    const inlinePush = params.configuration?.taskPushNotificationConfig;
    if (inlinePush && !card.capabilities.pushNotifications) throw new PushNotificationNotSupportedError();
    if (inlinePush) await vetWebhookUrl(inlinePush.url);
    let runtime: TaskRuntime;
    let existingTask: Task | undefined;
    if (message.taskId) {
      runtime = await runtimeFor({ tenant, taskId: message.taskId }, caller);
      existingTask = runtime.task as Task;
      if (isTerminalTaskState(existingTask.status.state)) {
        throw new UnsupportedOperationError({
          message: 'The task is in a terminal state and cannot accept messages',
          metadata: { taskId: existingTask.id },
        });
      }
      if (runtime.running)
        throw new UnsupportedOperationError({ message: 'The task is still running', metadata: { taskId: existingTask.id } });
      if (message.contextId && existingTask.contextId && message.contextId !== existingTask.contextId) {
        throw new InvalidParamsError({ message: 'message.contextId does not match the task' });
      }
    } else {
      // A store that would refuse the task refuses it here, before governance counts it and before anything runs.
      await store.admitTask?.({ tenant, owner: caller.owner });
      const taskId = extra.taskId ?? newId();
      runtime = new TaskRuntime({ tenant, taskId }, caller.owner, message.contextId ?? newId(), deps);
      runtime.pendingUserMessage = message;
    }

    // Governance before anything runs: lineage, then budget, recursion and policy.
    const skillId = chooseSkill(params);
    // OAuth scopes against the skill's own security requirements and the operator's rules, before governance counts the call.
    checkScopes(card, scopeRules, skillId, caller.principal);
    let governed: GovernedTaskLike | undefined;
    let taskContext = extra.context;
    if (governance) {
      if (taskContext === undefined) {
        const read = governance.readTaskContext(message.metadata);
        if (!read.ok) throw read.error;
        taskContext = read.context;
      }
      // Policy, concurrency buckets and budgets key on the verified AgentID when there is one.
      const principal = caller.principal;
      const agentId = principal?.agentId;
      const input: Parameters<GovernanceOptions['admit']>[0] = {
        caller: agentId ?? principal?.id ?? 'anonymous',
        skill: skillId ?? 'default',
      };
      if (agentId !== undefined) input.callerAgentId = agentId;
      if (principal?.scopes !== undefined) input.callerScopes = principal.scopes;
      if (taskContext) {
        input.incoming = taskContext;
        // The sender names its delegating task there; the child context keeps it.
        if (taskContext.parentTaskId !== undefined) input.parentTaskId = taskContext.parentTaskId;
      } else if (instrumentation?.traceId) {
        const traceId = instrumentation.traceId();
        if (traceId !== undefined && isTraceId(traceId)) input.traceId = traceId;
      }
      if (extra.signal) input.signal = extra.signal;
      governed = await governance.admit(input);
      taskContext = governed.context;
    }
    try {
      return await launch(params, caller, listener, extra, runtime, existingTask, skillId, governed, taskContext);
    } catch (error) {
      await governed?.finish({}).catch(() => undefined);
      throw error;
    }
  }

  /**
   * The user message as the executor sees it. Object.assign and two stores rather than an object
   * spread with extra keys: same keys in the same order, but in profiles of the governed bench
   * server the spread cost ~20 µs of CPU per request (V8's reason not pinned down).
   */
  function messageWithIds(message: Message, taskId: string, contextId: string): Message {
    const copy = Object.assign({}, message);
    copy.taskId = taskId;
    copy.contextId = contextId;
    return copy;
  }

  async function launch(
    params: SendMessageRequest,
    caller: Caller,
    listener: Listener,
    extra: ExecutionExtra,
    runtime: TaskRuntime,
    existingTask: Task | undefined,
    skillId: string | undefined,
    governed: GovernedTaskLike | undefined,
    taskContext: TaskContextLike | undefined,
  ): Promise<StartedExecution> {
    // The executor's signal follows cancel, the governor and the caller. It is made on first
    // read (most executors never look at it, and an AbortSignal is costly to make), with
    // listeners (not AbortSignal.any) so they can be removed when the task ends: a governor
    // may hand every task the same long-lived never-aborting signal.
    const executionSignal = new ExecutionSignal(governed?.signal, extra.signal);
    const contextId = existingTask?.contextId ?? runtime.contextId;
    const taskId = runtime.key.taskId;
    const requestContext = new ExecutorRequestContext(
      messageWithIds(params.message, taskId, contextId),
      existingTask,
      taskId,
      contextId,
      caller.principal,
      runtime.key.tenant,
      caller.version,
      caller.extensions,
      skillId,
      params.configuration?.acceptedOutputModes,
      taskContext,
      executionSignal,
    );
    const usage = { tokens: 0, usd: 0 };
    // Methods, not arrow functions: they need no `this`, so an executor may still pass them around.
    const sink: EventSink = {
      publish(event) {
        runtime.publishFromAgent(event);
      },
      reportUsage(reported) {
        if (typeof reported?.tokens === 'number' && reported.tokens > 0) {
          usage.tokens += reported.tokens;
          endForCut(runtime, governed?.meterTokens(reported.tokens), contextId);
        }
        if (typeof reported?.usd === 'number' && reported.usd > 0) {
          usage.usd += reported.usd;
          endForCut(runtime, governed?.meterUsd?.(reported.usd), contextId);
        }
      },
    };
    const inlinePush = params.configuration?.taskPushNotificationConfig;
    if (inlinePush) runtime.pendingPushConfig = { ...inlinePush, id: inlinePush.id ?? newId(), taskId };

    runtime.running = true;
    runtime.invalid = false;
    runtime.messageResponse = undefined;
    runtimes.set(runtime.mapKey, runtime);
    const detach = runtime.addListener(listener);
    runtime.execution = { signal: executionSignal, context: requestContext, sink };

    if (existingTask) {
      // A continuation: the new user message joins the history before the executor runs.
      try {
        await runtime.enqueue(async () => {
          const current = runtime.task as Task;
          const next = { ...current, history: [...(current.history ?? []), requestContext.message] };
          runtime.revision = await store.upsert(
            { tenant: runtime.key.tenant, owner: caller.owner, task: next, updatedAt: Date.now() },
            { expectedRevision: runtime.revision },
          );
          runtime.task = next;
        });
      } catch (error) {
        // The store refused: nothing runs, and the task is not left marked as running.
        runtime.running = false;
        runtime.execution = undefined;
        detach();
        // Another replica wrote the task since it was read: it runs there (or was just ended).
        if (TaskRevisionConflictError.isInstance(error))
          throw new UnsupportedOperationError({ message: 'The task is still running', metadata: { taskId: runtime.key.taskId } });
        throw error;
      }
    }

    const stopWatching = watchRun(runtime, governed?.signal, extra.signal, contextId);
    // `execute` catches everything itself; the catch here is the last line against an unhandled rejection.
    execute(runtime, requestContext, sink, usage, governed, executionSignal, stopWatching).catch((error: unknown) =>
      onError('task execution failed', error),
    );
    return { runtime, detach };
  }

  /**
   * What ends a run from outside, whatever the executor does with its signal: a governance limit
   * (`POLICY_VIOLATION`, `BUDGET_EXCEEDED`) ends the task FAILED with that ErrorInfo in its status
   * message; an in-process caller that aborts (a dispatcher's local executor) cancels it, as
   * CancelTask would. Returns the function that stops watching.
   */
  function watchRun(
    runtime: TaskRuntime,
    governedSignal: AbortSignal | undefined,
    caller: AbortSignal | undefined,
    contextId: string,
  ): () => void {
    // A governed task without mid-task limits shares one never-aborting signal (marked by
    // a2a-governance): listening to it per task would cost a listener for nothing.
    const limits =
      governedSignal === undefined || (governedSignal as unknown as Record<symbol, unknown>)[NEVER_ABORTS] === true
        ? undefined
        : governedSignal;
    const onLimit = (): void => {
      // The governed signal also follows the caller's: a caller abort is a cancel, not a failure.
      if (caller?.aborted) return;
      endForLimit(runtime, limits?.reason, contextId);
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
  function endForLimit(runtime: TaskRuntime, reason: unknown, contextId: string): void {
    if (!A2AError.isInstance(reason) || (reason.reason !== 'POLICY_VIOLATION' && reason.reason !== 'BUDGET_EXCEEDED')) return;
    if (runtime.task && isTerminalTaskState(runtime.task.status.state)) return;
    runtime.execution?.signal.abort(reason);
    void runtime
      .enqueue(() => runtime.failWith(reason, contextId))
      .catch((error: unknown) => onError('ending a task on a limit failed', error));
  }

  /** A meter call's budget cut, or a promise of it from a shared ledger: ends the task as `endForLimit`. */
  function endForCut(runtime: TaskRuntime, cut: unknown, contextId: string): void {
    if (cut instanceof Promise)
      void cut.then(
        (settled: unknown) => endForLimit(runtime, settled, contextId),
        () => undefined,
      );
    else endForLimit(runtime, cut, contextId);
  }

  /** Runs the executor in the background, then ends the task's run and settles governance. */
  async function execute(
    runtime: TaskRuntime,
    requestContext: RequestContext,
    sink: EventSink,
    usage: { tokens: number; usd: number },
    governed: GovernedTaskLike | undefined,
    executionSignal: ExecutionSignal,
    stopWatching: () => void,
  ): Promise<void> {
    let failure: unknown;
    const observer = instrumentation?.execution(requestContext);
    try {
      if (observer === undefined) await options.executor.execute(requestContext, sink);
      else await observer.run(() => options.executor.execute(requestContext, sink));
    } catch (error) {
      failure = error;
      onError('executor failed', error);
    }
    try {
      await runtime.enqueue(() => endRun(runtime, failure, requestContext.contextId));
    } catch (error) {
      // The store refused even the final write: the run still ends, and whoever waits hears why.
      onError('ending the task failed', error);
      runtime.failListeners(toA2AError(error));
      runtime.running = false;
      runtime.execution = undefined;
      runtime.endListeners();
    }
    stopWatching();
    executionSignal.unfollow();
    if (governed) {
      try {
        await governed.finish({ tokens: usage.tokens, usd: usage.usd });
      } catch (error) {
        onError('governance finish failed', error);
      }
    }
    if (observer !== undefined) {
      const outcome = { task: runtime.task, message: runtime.messageResponse !== undefined, usage };
      observer.end(failure === undefined ? outcome : { ...outcome, error: failure });
    }
    releaseIfIdle(runtime);
  }

  /** In the task's write queue, after the executor returned (or threw). */
  async function endRun(runtime: TaskRuntime, failure: unknown, contextId: string): Promise<void> {
    const task = runtime.task;
    if (failure !== undefined && task && !isTerminalTaskState(task.status.state)) {
      await runtime.failWith(executorFailure(failure), contextId);
    } else if (!task && !runtime.messageResponse && !runtime.invalid) {
      runtime.failListeners(
        failure === undefined ? new InvalidAgentResponseError({ message: 'The agent produced no response' }) : toA2AError(failure),
      );
    }
    runtime.running = false;
    runtime.execution = undefined;
    runtime.endListeners();
  }

  return { startExecution };
}

export type TaskRun = ReturnType<typeof createTaskRun>;

/**
 * What the caller is told when the executor throws: an A2A error (a delegated refusal, say) as it is, since those are
 * made to cross the wire; anything else as a generic InternalError, since a thrown message may hold what the caller
 * must not see. The operator hears the real error through `onError`.
 */
function executorFailure(failure: unknown): A2AError {
  if (A2AError.isInstance(failure)) return failure;
  return new InternalError({ message: "The agent failed while working on this task; the agent's log has the details" });
}
