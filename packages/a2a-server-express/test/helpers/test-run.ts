import type { Message } from '@a2aplane/a2a-types';
import { ExecutionSignal } from '../../src/core/execution-signal.js';
import { ExecutorRequestContext } from '../../src/core/request-context.js';
import type { Run } from '../../src/core/run.js';
import type { TaskRuntime } from '../../src/core/task-runtime.js';

/** A run of `runtime`'s task as the server would make it for `message` (no governance, no caller signal). */
export function testRun(runtime: TaskRuntime, overrides: Partial<Run> = {}, message?: Message): Run {
  const signal = new ExecutionSignal(undefined, undefined);
  const taskId = runtime.key.taskId;
  const contextId = runtime.task?.contextId ?? runtime.contextId;
  const userMessage: Message = message ?? { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hi' }], taskId, contextId };
  const context = new ExecutorRequestContext(
    userMessage,
    runtime.task,
    taskId,
    contextId,
    undefined,
    runtime.key.tenant,
    '1.0',
    [],
    undefined,
    undefined,
    undefined,
    signal,
  );
  return {
    signal,
    context,
    sink: { publish: (event) => runtime.publishFromAgent(event), reportUsage: () => undefined },
    governed: undefined,
    callerSignal: undefined,
    usage: { tokens: 0, usd: 0 },
    firstMessage: runtime.task ? undefined : userMessage,
    pushConfig: undefined,
    ...overrides,
  };
}
