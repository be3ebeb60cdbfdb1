import { createA2AClient } from '@a2aplane/a2a-client';
import { createRemoteExecutorFactory } from '@a2aplane/a2a-client/routing';
import { RecursionPolicy } from '@a2aplane/a2a-governance';
import { Dispatcher, lowestLatency, PeerPool } from '@a2aplane/a2a-routing';
import type { AgentExecutor, TaskContextLike } from '@a2aplane/a2a-server-express';
import { createTaskUpdater } from '@a2aplane/a2a-server-express';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientInterceptors, createServerInstrumentation } from '../src/index.js';
import { startAgent, type TestAgent, userMessage, waitFor } from './helpers.js';

const exporter = new InMemorySpanExporter();
const agents: TestAgent[] = [];
/** The lineage agent B's executor ran under. */
const seenByB: TaskContextLike[] = [];

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
});

afterAll(async () => {
  for (const agent of agents) await agent.close();
  trace.disable();
  context.disable();
});

const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan): string => span.spanContext().spanId;
const one = (spans: ReadableSpan[], what: string): ReadableSpan => {
  expect(spans, what).toHaveLength(1);
  return spans[0] as ReadableSpan;
};

describe('a delegation through the routing Dispatcher over HTTP (decision record 0027)', () => {
  it('names the delegating task as parent in the lineage and the spans, and nests the outbound call under the executor run', async () => {
    const agentB = await startAgent({
      agentId: 'agent-b',
      executor: {
        async execute(ctx, events) {
          if (ctx.taskContext) seenByB.push(ctx.taskContext);
          const updater = createTaskUpdater(ctx, events);
          updater.submit();
          updater.complete('leaf done');
        },
      },
      instrumentation: createServerInstrumentation({ agentId: 'agent-b', agentName: 'B' }),
    });
    agents.push(agentB);
    const clientB = createA2AClient({ card: agentB.card, allowInsecureLoopback: true, interceptors: createClientInterceptors() });

    const instrumentationA = createServerInstrumentation({ agentId: 'agent-a', agentName: 'A' });
    const pool = new PeerPool();
    pool.upsert('agent-b', agentB.card);
    const dispatcher = new Dispatcher({
      selfAgentId: 'agent-a',
      pool,
      selector: lowestLatency(),
      remoteExecutor: createRemoteExecutorFactory({ clientFor: () => clientB }),
      recursion: new RecursionPolicy(),
      hooks: instrumentationA.governanceHooks,
    });
    const executorA: AgentExecutor = {
      async execute(ctx, events) {
        const updater = createTaskUpdater(ctx, events);
        updater.submit();
        await dispatcher.dispatch({
          request: userMessage('leaf'),
          task: { skillId: 'work' },
          caller: 'agent-a',
          context: ctx.taskContext as TaskContextLike,
          parentTaskId: ctx.taskId,
        });
        updater.complete('root done');
      },
    };
    const agentA = await startAgent({ agentId: 'agent-a', executor: executorA, instrumentation: instrumentationA });
    agents.push(agentA);

    const clientA = createA2AClient({ card: agentA.card, allowInsecureLoopback: true });
    const result = await clientA.sendMessage(userMessage('root'));
    const taskIdA = (result as { task: { id: string; status: { state: string } } }).task.id;
    expect((result as { task: { status: { state: string } } }).task.status.state).toBe('TASK_STATE_COMPLETED');
    await waitFor(() => exporter.getFinishedSpans().some((s) => s.name === 'invoke_agent A'), 'the run of A');
    const spans = exporter.getFinishedSpans();

    // The TaskContext B ran under and B's executor span name A's task as the parent.
    expect(seenByB[0]).toMatchObject({ depth: 1, rootAgentId: 'agent-a', parentTaskId: taskIdA });
    const invokeA = one(
      spans.filter((s) => s.name === 'invoke_agent A'),
      'invoke_agent A',
    );
    const invokeB = one(
      spans.filter((s) => s.name === 'invoke_agent B'),
      'invoke_agent B',
    );
    expect(invokeA.attributes['a2a.task.id']).toBe(taskIdA);
    expect(invokeB.attributes).toMatchObject({ 'a2a.lineage.parent_task_id': taskIdA, 'a2a.lineage.depth': 1 });

    // invoke_agent A -> CLIENT call (the dispatcher's remote executor streams) -> server B -> invoke_agent B, one trace.
    const outbound = one(
      spans.filter((s) => s.kind === SpanKind.CLIENT),
      'the outbound call',
    );
    expect(outbound.name).toBe('lf.a2a.v1.A2AService/SendStreamingMessage');
    expect(parentOf(outbound)).toBe(idOf(invokeA));
    const serverB = one(
      spans.filter((s) => s.kind === SpanKind.SERVER && parentOf(s) === idOf(outbound)),
      'server B',
    );
    expect(parentOf(invokeB)).toBe(idOf(serverB));
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(1);
    // The dispatcher's outbound recursion gate is a stage span under the run that delegates.
    const outboundRecursion = spans.filter((s) => s.name === 'a2a.governance.recursion' && parentOf(s) === idOf(invokeA));
    expect(outboundRecursion).toHaveLength(1);
  });
});
