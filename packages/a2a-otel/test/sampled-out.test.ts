import { createA2AClient } from '@a2aplane/a2a-client';
import { type AgentExecutor, createTaskUpdater } from '@a2aplane/a2a-server-express';
import { context, SamplingDecision, SpanKind } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, type Sampler, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import { createServerInstrumentation } from '../src/index.js';
import { startAgent, type TestAgent, userMessage } from './helpers.js';

const executor: AgentExecutor = {
  async execute(ctx, events) {
    const updater = createTaskUpdater(ctx, events);
    updater.submit();
    updater.complete('done');
  },
};
let agent: TestAgent | undefined;
afterAll(async () => {
  await agent?.close();
  context.disable();
});

describe('a trace the sampler dropped (decision record 0027)', () => {
  it('starts no stage or executor span under a server span that records nothing', async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    // Drops SERVER spans only: what would record below them is not even started.
    const sampler: Sampler = {
      shouldSample: (_ctx, _traceId, _name, kind) => ({
        decision: kind === SpanKind.SERVER ? SamplingDecision.NOT_RECORD : SamplingDecision.RECORD_AND_SAMPLED,
      }),
      toString: () => 'server-spans-dropped',
    };
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({ sampler, spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const instrumentation = createServerInstrumentation({ agentId: 'agent-s', agentName: 'S', tracerProvider });
    agent = await startAgent({ agentId: 'agent-s', executor, instrumentation });
    const client = createA2AClient({ card: agent.card, allowInsecureLoopback: true });
    const result = await client.sendMessage(userMessage('hi'));
    expect((result as { task: { status: { state: string } } }).task.status.state).toBe('TASK_STATE_COMPLETED');
    await tracerProvider.forceFlush();
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual([]);
  });
});
