import { createA2AClient } from '@a2aplane/a2a-client';
import { type AgentExecutor, createTaskUpdater, type TaskContextLike } from '@a2aplane/a2a-server-express';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { createClientInterceptors, createServerInstrumentation } from '../src/index.js';
import { startAgent, type TestAgent, userMessage } from './helpers.js';

// No SDK registered in this file: the API is a no-op (a context manager only in the last test).
const seen: TaskContextLike[] = [];
/** The trace of the active context each run saw (what an instrumented outbound call would continue). */
const activeTraces: (string | undefined)[] = [];
const executor: AgentExecutor = {
  async execute(ctx, events) {
    if (ctx.taskContext) seen.push(ctx.taskContext);
    activeTraces.push(trace.getSpanContext(context.active())?.traceId);
    const updater = createTaskUpdater(ctx, events);
    updater.submit();
    updater.complete('done');
  },
};
let agent: TestAgent;
afterAll(async () => {
  await agent?.close();
});

describe('without an OpenTelemetry SDK (decision record 0027)', () => {
  it('serves as before, and the client keeps its own traceparent on the lineage trace', async () => {
    agent = await startAgent({ agentId: 'agent-n', executor, instrumentation: createServerInstrumentation({ agentId: 'agent-n' }) });
    const client = createA2AClient({ card: agent.card, allowInsecureLoopback: true, interceptors: createClientInterceptors() });
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const result = await client.sendMessage(userMessage('hi'), {
      context: { traceId, depth: 0, rootAgentId: 'root', visitedAgents: ['root'] },
    });
    expect((result as { task: { status: { state: string } } }).task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(agent.headers.at(-1)?.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    expect(seen.at(-1)).toMatchObject({ traceId, depth: 1 });
  });

  it('with only a context manager (no tracer provider) a root task and its run join the trace of the incoming traceparent', async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    onTestFinished(() => context.disable());
    const client = createA2AClient({ card: agent.card, allowInsecureLoopback: true });
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    await client.sendMessage(userMessage('hi'), { headers: { traceparent: `00-${traceId}-b7ad6b7169203331-01` } });
    expect(seen.at(-1)).toMatchObject({ traceId, depth: 0, rootAgentId: 'agent-n' });
    expect(activeTraces.at(-1)).toBe(traceId);
  });

  it('with nothing listening, hands the request to the core as is and returns its promise unwrapped', () => {
    const instrumentation = createServerInstrumentation({ agentId: 'agent-n' });
    const request = {
      method: 'SendMessage',
      auth: { headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } },
    };
    const response = Promise.resolve({ kind: 'result' as const, result: {} });
    const served: unknown[] = [];
    const returned = instrumentation.operation(request, (given) => {
      served.push(given);
      return response;
    });
    expect(returned).toBe(response);
    expect(served).toEqual([request]);
    expect(served[0]).toBe(request);
    // No context manager: no trace to continue, no executor observer, no stage hooks.
    expect(instrumentation.traceId()).toBeUndefined();
    expect(instrumentation.execution({ taskId: 't', contextId: 'c' })).toBeUndefined();
    expect(instrumentation.governanceHooks.enabled()).toBe(false);
  });
});
