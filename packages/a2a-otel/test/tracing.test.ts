import { type A2AClient, createA2AClient } from '@a2aplane/a2a-client';
import type { AgentExecutor, TaskContextLike } from '@a2aplane/a2a-server-express';
import { createTaskUpdater } from '@a2aplane/a2a-server-express';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClientInterceptors, createServerInstrumentation } from '../src/index.js';
import { startAgent, type TestAgent, userMessage, waitFor } from './helpers.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contextManager = new AsyncLocalStorageContextManager();

let agentA: TestAgent;
let agentB: TestAgent;
let clientA: A2AClient;
/** The lineage agent B's executor ran under. */
const seenByB: TaskContextLike[] = [];

beforeAll(async () => {
  context.setGlobalContextManager(contextManager.enable());
  trace.setGlobalTracerProvider(provider);
  const executorB: AgentExecutor = {
    async execute(ctx, events) {
      if (ctx.taskContext) seenByB.push(ctx.taskContext);
      const updater = createTaskUpdater(ctx, events);
      updater.submit();
      events.reportUsage({ tokens: 7, usd: 0.002 });
      updater.complete('leaf done');
    },
  };
  agentB = await startAgent({
    agentId: 'agent-b',
    executor: executorB,
    instrumentation: createServerInstrumentation({ agentId: 'agent-b', agentName: 'B' }),
  });
  const clientB = createA2AClient({ card: agentB.card, allowInsecureLoopback: true, interceptors: [createClientInterceptors()] });
  const executorA: AgentExecutor = {
    async execute(ctx, events) {
      const updater = createTaskUpdater(ctx, events);
      updater.submit();
      updater.startWork('delegating');
      await clientB.sendMessage(userMessage('leaf'), { context: { ...(ctx.taskContext as TaskContextLike), parentTaskId: ctx.taskId } });
      updater.complete('root done');
    },
  };
  agentA = await startAgent({
    agentId: 'agent-a',
    executor: executorA,
    instrumentation: createServerInstrumentation({ agentId: 'agent-a', agentName: 'A' }),
  });
  clientA = createA2AClient({ card: agentA.card, allowInsecureLoopback: true, interceptors: createClientInterceptors() });
});

afterAll(async () => {
  await agentA.close();
  await agentB.close();
  trace.disable();
  context.disable();
});

beforeEach(() => {
  exporter.reset();
  seenByB.length = 0;
});

const parentOf = (span: ReadableSpan): string | undefined => span.parentSpanContext?.spanId;
const named = (spans: ReadableSpan[], name: string, kind?: SpanKind): ReadableSpan[] =>
  spans.filter((s) => s.name === name && (kind === undefined || s.kind === kind));
const one = (spans: ReadableSpan[], what: string): ReadableSpan => {
  expect(spans, what).toHaveLength(1);
  return spans[0] as ReadableSpan;
};

describe('one trace across two agents over HTTP (decision record 0027)', () => {
  it('links client -> server A -> governance, invoke_agent A -> client -> server B -> invoke_agent B', async () => {
    const result = await clientA.sendMessage(userMessage('root'));
    expect((result as { task: { status: { state: string } } }).task.status.state).toBe('TASK_STATE_COMPLETED');
    await waitFor(() => named(exporter.getFinishedSpans(), 'invoke_agent A').length === 1, 'the spans of both runs');
    const spans = exporter.getFinishedSpans();

    const traceId = spans[0]?.spanContext().traceId as string;
    expect(new Set(spans.map((s) => s.spanContext().traceId))).toEqual(new Set([traceId]));

    const send = 'lf.a2a.v1.A2AService/SendMessage';
    const clients = named(spans, send, SpanKind.CLIENT);
    const servers = named(spans, send, SpanKind.SERVER);
    expect(clients).toHaveLength(2);
    expect(servers).toHaveLength(2);
    const rootCall = one(
      clients.filter((s) => parentOf(s) === undefined),
      'the root client span',
    );
    const serverA = one(
      servers.filter((s) => parentOf(s) === rootCall.spanContext().spanId),
      'server A',
    );
    const invokeA = one(named(spans, 'invoke_agent A'), 'invoke_agent A');
    const invokeB = one(named(spans, 'invoke_agent B'), 'invoke_agent B');
    expect(parentOf(invokeA)).toBe(serverA.spanContext().spanId);
    const delegation = one(
      clients.filter((s) => parentOf(s) === invokeA.spanContext().spanId),
      'the delegation call',
    );
    const serverB = one(
      servers.filter((s) => parentOf(s) === delegation.spanContext().spanId),
      'server B',
    );
    expect(parentOf(invokeB)).toBe(serverB.spanContext().spanId);

    // Governance stages are children of their agent's server span, with their decision.
    const budgets = named(spans, 'a2a.governance.budget');
    expect(budgets.map(parentOf).sort()).toEqual([serverA.spanContext().spanId, serverB.spanContext().spanId].sort());
    for (const stage of budgets) expect(stage.attributes['a2a.governance.decision']).toBe('accepted');
    // The recursion guard judges the root call too (no lineage: depth 0), so each agent shows the stage.
    const recursions = named(spans, 'a2a.governance.recursion');
    expect(recursions.map(parentOf).sort()).toEqual([serverA.spanContext().spanId, serverB.spanContext().spanId].sort());
    for (const stage of recursions) expect(stage.attributes['a2a.governance.decision']).toBe('accepted');

    // Attributes: RPC conventions, GenAI agent ids, lineage, cost and tokens.
    expect(serverA.attributes).toMatchObject({
      'rpc.system': 'a2a',
      'rpc.service': 'lf.a2a.v1.A2AService',
      'rpc.method': 'SendMessage',
      'a2a.outcome': 'ok',
    });
    expect(invokeA.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.id': 'agent-a',
      'gen_ai.agent.name': 'A',
      'a2a.skill.id': 'work',
      'a2a.lineage.depth': 0,
      'a2a.lineage.trace_id': traceId,
      'a2a.lineage.root_agent_id': 'agent-a',
      'a2a.task.state': 'TASK_STATE_COMPLETED',
    });
    const taskIdA = invokeA.attributes['a2a.task.id'];
    expect(invokeB.attributes).toMatchObject({
      'gen_ai.agent.id': 'agent-b',
      'a2a.lineage.depth': 1,
      'a2a.lineage.trace_id': traceId,
      'a2a.lineage.parent_task_id': taskIdA,
      'a2a.lineage.visited_agents': ['agent-a', 'agent-b'],
      'a2a.usage.tokens': 7,
      'a2a.cost.usd': 0.002,
    });
    // The TaskContext B received carries the same trace as the traceparent header it received.
    expect(seenByB[0]?.traceId).toBe(traceId);
    const headerToB = agentB.headers.at(-1)?.traceparent;
    expect(headerToB).toBe(`00-${traceId}-${delegation.spanContext().spanId}-01`);
  });

  it('continues the W3C traceparent of an uninstrumented caller', async () => {
    const plain = createA2AClient({ card: agentB.card, allowInsecureLoopback: true });
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parent = '00f067aa0ba902b7';
    await plain.sendMessage(userMessage('leaf'), { headers: { traceparent: `00-${traceId}-${parent}-01` } });
    await waitFor(() => named(exporter.getFinishedSpans(), 'invoke_agent B').length === 1, 'the run of B');
    const spans = exporter.getFinishedSpans();
    const server = one(named(spans, 'lf.a2a.v1.A2AService/SendMessage', SpanKind.SERVER), 'server B');
    expect(server.spanContext().traceId).toBe(traceId);
    expect(parentOf(server)).toBe(parent);
    expect(server.parentSpanContext?.isRemote).toBe(true);
    // No lineage came in: the root TaskContext joins the caller's trace.
    expect(seenByB[0]).toMatchObject({ traceId, depth: 0, rootAgentId: 'agent-b' });
  });

  it('records a refusal on the governance stage span and an error outcome on the server span', async () => {
    const plain = createA2AClient({ card: agentB.card, allowInsecureLoopback: true });
    const context = {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      depth: 0,
      rootAgentId: 'agent-x',
      visitedAgents: ['agent-x', 'agent-b'],
    };
    await expect(plain.sendMessage(userMessage('loop'), { context })).rejects.toThrow();
    await waitFor(() => named(exporter.getFinishedSpans(), 'lf.a2a.v1.A2AService/SendMessage', SpanKind.SERVER).length === 1, 'server B');
    const spans = exporter.getFinishedSpans();
    const recursion = one(named(spans, 'a2a.governance.recursion'), 'the recursion stage');
    expect(recursion.attributes).toMatchObject({ 'a2a.governance.decision': 'rejected', 'a2a.lineage.trace_id': context.traceId });
    expect(typeof recursion.attributes['a2a.governance.reason']).toBe('string');
    const server = one(named(spans, 'lf.a2a.v1.A2AService/SendMessage', SpanKind.SERVER), 'server B');
    expect(server.attributes).toMatchObject({ 'a2a.outcome': 'RECURSION_LIMIT', 'error.type': 'RECURSION_LIMIT' });
    expect(server.status.code).toBe(2);
    expect(named(spans, 'invoke_agent B')).toHaveLength(0);
  });

  it('ends a streaming operation span when the stream ends', async () => {
    const plain = createA2AClient({ card: agentB.card, allowInsecureLoopback: true, interceptors: createClientInterceptors() });
    const events = [];
    for await (const event of plain.sendStreamingMessage(userMessage('stream'))) events.push(event);
    expect(events.length).toBeGreaterThan(0);
    await waitFor(() => named(exporter.getFinishedSpans(), 'lf.a2a.v1.A2AService/SendStreamingMessage').length === 2, 'both stream spans');
    const spans = exporter.getFinishedSpans();
    const client = one(named(spans, 'lf.a2a.v1.A2AService/SendStreamingMessage', SpanKind.CLIENT), 'client');
    const server = one(named(spans, 'lf.a2a.v1.A2AService/SendStreamingMessage', SpanKind.SERVER), 'server');
    expect(parentOf(server)).toBe(client.spanContext().spanId);
    expect(server.attributes['a2a.outcome']).toBe('ok');
  });
});
