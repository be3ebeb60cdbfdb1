import type { Message, SendMessageRequest } from '@a2aplane/a2a-types';
import type { EventSink } from '../agent/executor.js';
import { newId } from '../agent/new-id.js';
import type { Caller } from './caller.js';
import { ExecutionSignal } from './execution-signal.js';
import type { RunAdmission } from './governance-admission.js';
import { ExecutorRequestContext } from './request-context.js';
import type { ExecutionExtra, Run } from './run.js';
import type { TaskRuntime } from './task-runtime.js';

/** Makes the `Run` of each admitted message; `endForCut` ends a task on a budget cut its usage report met. */
export function createRunFactory(endForCut: (runtime: TaskRuntime, cut: unknown) => void) {
  /** The run of an admitted message on `runtime`'s task (a continuation when the task exists). */
  function createRun(
    params: SendMessageRequest,
    caller: Caller,
    runtime: TaskRuntime,
    admission: RunAdmission,
    extra: ExecutionExtra,
  ): Run {
    const { governed } = admission;
    const existing = runtime.task;
    // The executor's signal follows cancel, the governor and the caller. It is made on first
    // read (most executors never look at it, and an AbortSignal is costly to make), with
    // listeners (not AbortSignal.any) so they can be removed when the task ends: a governor
    // may hand every task the same long-lived never-aborting signal.
    const signal = new ExecutionSignal(governed?.signal, extra.signal);
    const contextId = existing?.contextId ?? runtime.contextId;
    const taskId = runtime.key.taskId;
    const context = new ExecutorRequestContext(
      messageWithIds(params.message, taskId, contextId),
      existing,
      taskId,
      contextId,
      caller.principal,
      runtime.key.tenant,
      caller.version,
      caller.extensions,
      admission.skillId,
      params.configuration?.acceptedOutputModes,
      admission.taskContext,
      signal,
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
          endForCut(runtime, governed?.meterTokens(reported.tokens));
        }
        if (typeof reported?.usd === 'number' && reported.usd > 0) {
          usage.usd += reported.usd;
          endForCut(runtime, governed?.meterUsd?.(reported.usd));
        }
      },
    };
    const inlinePush = params.configuration?.taskPushNotificationConfig;
    return {
      signal,
      context,
      sink,
      governed,
      callerSignal: extra.signal,
      usage,
      firstMessage: existing ? undefined : params.message,
      pushConfig: inlinePush ? { ...inlinePush, id: inlinePush.id ?? newId(), taskId } : undefined,
    };
  }

  return createRun;
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
