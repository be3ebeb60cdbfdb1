import { createA2AClient } from '@a2aplane/a2a-client';
import { createRemoteExecutorFactory } from '@a2aplane/a2a-client/routing';
import { createInMemoryBudgetLedger, RecursionPolicy } from '@a2aplane/a2a-governance';
import { Dispatcher, lowestLatency, PeerPool } from '@a2aplane/a2a-routing';
import type { AgentExecutor, TaskContextLike } from '@a2aplane/a2a-server-express';
import { createTaskUpdater } from '@a2aplane/a2a-server-express';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClientInterceptors, createServerInstrumentation } from '../src/index.js';
import { buildDelegationTree, readOtlpJson, readOtlpTraces, summarizeTrace } from '../src/read.js';
import { startAgent, type TestAgent, userMessage, waitFor } from './helpers.js';

const exporter = new InMemorySpanExporter();
const agents: TestAgent[] = [];

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
});

afterAll(async () => {
  for (const agent of agents) await agent.close();
  trace.disable();
  context.disable();
});

describe('buildDelegationTree on the spans a2a-otel records', () => {
  it('shows A -> B admitted with its spend, B refusing the second call by its budget, the dispatcher of A refusing the third', async () => {
    const agentB = await startAgent({
      agentId: 'agent-b',
      executor: {
        async execute(ctx, events) {
          const updater = createTaskUpdater(ctx, events);
          updater.submit();
          events.reportUsage({ usd: 0.03, tokens: 120 });
          updater.complete('leaf done');
        },
      },
      instrumentation: createServerInstrumentation({ agentId: 'agent-b', agentName: 'B' }),
      // B's inbound budget: 0.05 USD a minute, 0.03 reserved per task: after the first, the next does not fit.
      budget: createInMemoryBudgetLedger({ maxTasksPerMinute: 100, maxUsdPerMinute: 0.05 }),
      estimatedCostUsd: 0.03,
    });
    agents.push(agentB);
    const clientB = createA2AClient({ card: agentB.card, allowInsecureLoopback: true, interceptors: createClientInterceptors() });
    const instrumentationA = createServerInstrumentation({ agentId: 'agent-a', agentName: 'A' });
    const pool = new PeerPool();
    pool.upsert('agent-b', agentB.card);
    // A's outbound budget: two dispatches a minute, so the third never leaves A.
    const dispatcher = new Dispatcher({
      selfAgentId: 'agent-a',
      pool,
      selector: lowestLatency(),
      remoteExecutor: createRemoteExecutorFactory({ clientFor: () => clientB }),
      recursion: new RecursionPolicy(),
      budget: createInMemoryBudgetLedger({ maxTasksPerMinute: 2 }),
      hooks: instrumentationA.governanceHooks,
    });
    const executorA: AgentExecutor = {
      async execute(ctx, events) {
        const updater = createTaskUpdater(ctx, events);
        updater.submit();
        for (const text of ['first', 'second', 'third']) {
          await dispatcher
            .dispatch({
              request: userMessage(text),
              task: { skillId: 'work' },
              caller: 'agent-a',
              context: ctx.taskContext as TaskContextLike,
              parentTaskId: ctx.taskId,
            })
            .catch(() => undefined);
        }
        events.reportUsage({ usd: 0.01 });
        updater.complete('root done');
      },
    };
    const agentA = await startAgent({ agentId: 'agent-a', executor: executorA, instrumentation: instrumentationA });
    agents.push(agentA);

    await createA2AClient({ card: agentA.card, allowInsecureLoopback: true }).sendMessage(userMessage('root'));
    await waitFor(() => exporter.getFinishedSpans().some((s) => s.name === 'invoke_agent A'), 'the run of A');
    // Through the OTel SDK's own OTLP JSON serializer, as the OTLP/HTTP exporter sends it.
    const json = new TextDecoder().decode(JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans() as never));
    const spans = readOtlpJson(json);
    expect(spans.length).toBe(exporter.getFinishedSpans().length);

    const roots = buildDelegationTree(spans);
    expect(roots).toHaveLength(1);
    const root = roots[0]!;
    expect(root).toMatchObject({ kind: 'served', agentId: 'agent-a', agentName: 'A', depth: 0, outcome: 'completed', costUsd: 0.01 });
    expect(root.children.map((hop) => [hop.kind, hop.agentName, hop.depth, hop.outcome, hop.reason])).toEqual([
      ['served', 'B', 1, 'completed', undefined],
      ['served', 'B', 1, 'rejected', 'BUDGET_EXCEEDED'],
      ['refused', undefined, 1, 'rejected', 'BUDGET_EXCEEDED'],
    ]);
    const [served, refusedByB, refusedByA] = root.children;
    expect(served).toMatchObject({ agentId: 'agent-b', costUsd: 0.03, tokens: 120, taskState: 'TASK_STATE_COMPLETED' });
    // B's governor said no, with where its budget stood: 0.03 spent of 0.05 a minute.
    expect(refusedByB!.decisions.find((d) => d.stage === 'budget')).toMatchObject({
      decision: 'rejected',
      side: 'inbound',
      budget: { limit: 'usd', observed: 0.03, cap: 0.05 },
    });
    expect(refusedByB!.costUsd).toBeUndefined();
    // A's dispatcher said no before the call left: the third dispatch has no server span.
    expect(refusedByA!.decisions.find((d) => d.stage === 'budget')).toMatchObject({
      decision: 'rejected',
      side: 'outbound',
      budget: { limit: 'tasks', observed: 2, cap: 2 },
    });
    // A's admitted dispatches: their outbound stages accepted, listed on A's hop.
    expect(root.decisions.filter((d) => d.side === 'outbound' && d.stage === 'budget' && d.decision === 'accepted')).toHaveLength(2);

    const summary = summarizeTrace(spans)!;
    expect(summary).toMatchObject({
      agents: ['A', 'B'],
      hops: 4,
      refusals: [{ agent: 'B', reason: 'BUDGET_EXCEEDED' }, { reason: 'BUDGET_EXCEEDED' }],
      budget: { limit: 'tasks', cap: 2 },
    });
    expect(summary.spentUsd).toBeCloseTo(0.04);
  });

  it('marks a hop its inbound governor refused, and makes a server span whose parent is missing a root', () => {
    const spans = readOtlpTraces({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  traceId: '0af7651916cd43dd8448eb211c80319c',
                  spanId: '1000000000000000',
                  parentSpanId: 'ffffffffffffffff',
                  name: 'lf.a2a.v1.A2AService/SendMessage',
                  kind: 2,
                  startTimeUnixNano: '10',
                  endTimeUnixNano: '20',
                  attributes: [
                    { key: 'gen_ai.agent.id', value: { stringValue: 'agent-c' } },
                    { key: 'a2a.outcome', value: { stringValue: 'RECURSION_LIMIT' } },
                  ],
                },
                {
                  traceId: '0af7651916cd43dd8448eb211c80319c',
                  spanId: '2000000000000000',
                  parentSpanId: '1000000000000000',
                  name: 'a2a.governance.recursion',
                  kind: 1,
                  startTimeUnixNano: '11',
                  endTimeUnixNano: '12',
                  attributes: [
                    { key: 'a2a.governance.decision', value: { stringValue: 'rejected' } },
                    { key: 'a2a.governance.reason', value: { stringValue: 'RECURSION_LIMIT' } },
                  ],
                },
              ],
            },
          ],
        },
      ],
    });
    expect(buildDelegationTree(spans)).toEqual([
      expect.objectContaining({
        kind: 'served',
        agentId: 'agent-c',
        outcome: 'rejected',
        reason: 'RECURSION_LIMIT',
        depth: 0,
        children: [],
      }),
    ]);
    expect(buildDelegationTree(spans)[0]?.decisions).toEqual([
      expect.objectContaining({ stage: 'recursion', side: 'inbound', decision: 'rejected' }),
    ]);
  });
});
