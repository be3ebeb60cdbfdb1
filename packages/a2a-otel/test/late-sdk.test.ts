import { createA2AClient } from '@a2aplane/a2a-client';
import { type AgentExecutor, createTaskUpdater } from '@a2aplane/a2a-server-express';
import { context, ProxyTracerProvider, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import { createClientInterceptors, createServerInstrumentation } from '../src/index.js';
import { startAgent, type TestAgent, userMessage, waitFor } from './helpers.js';

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
  trace.disable();
  context.disable();
});

describe('an SDK registered after the instrumentation was made (decision record 0027)', () => {
  it('observes nothing while none is registered, and records spans once one is', async () => {
    const instrumentation = createServerInstrumentation({ agentId: 'agent-l', agentName: 'L' });
    // Nothing listens: the governor is spared its stage hooks, the core runs the executor directly.
    expect(instrumentation.governanceHooks.enabled()).toBe(false);
    expect(instrumentation.execution({ taskId: 't', contextId: 'c' })).toBeUndefined();
    agent = await startAgent({ agentId: 'agent-l', executor, instrumentation });
    const client = createA2AClient({ card: agent.card, allowInsecureLoopback: true });
    await client.sendMessage(userMessage('before'));

    const exporter = new InMemorySpanExporter();
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    expect(instrumentation.governanceHooks.enabled()).toBe(true);
    await client.sendMessage(userMessage('after'));
    await waitFor(() => exporter.getFinishedSpans().some((s) => s.name === 'invoke_agent L'), 'the executor span');
    const names = exporter.getFinishedSpans().map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['lf.a2a.v1.A2AService/SendMessage', 'a2a.governance.budget', 'invoke_agent L']));
    expect(names.filter((n) => n === 'lf.a2a.v1.A2AService/SendMessage')).toHaveLength(1);
  });

  it('a tracer provider given as an option: a proxy records once an SDK is behind it, any other from the start', () => {
    const proxy = new ProxyTracerProvider();
    const viaProxy = createServerInstrumentation({ tracerProvider: proxy });
    expect(viaProxy.governanceHooks.enabled()).toBe(false);
    expect(viaProxy.execution({ taskId: 't', contextId: 'c' })).toBeUndefined();
    const exporter = new InMemorySpanExporter();
    proxy.setDelegate(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    expect(viaProxy.governanceHooks.enabled()).toBe(true);
    const observer = viaProxy.execution({ taskId: 't', contextId: 'c' });
    expect(observer).toBeDefined();
    observer?.end({ task: undefined, message: true, usage: { tokens: 0, usd: 0 } });
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(['invoke_agent']);

    const direct = createServerInstrumentation({ tracerProvider: new BasicTracerProvider() });
    expect(direct.governanceHooks.enabled()).toBe(true);
  });

  it('client interceptors given a proxy start a CLIENT span once an SDK is behind it', () => {
    const proxy = new ProxyTracerProvider();
    const interceptors = createClientInterceptors({ tracerProvider: proxy });
    const before = { method: 'SendMessage', params: {}, headers: {} as Record<string, string> };
    interceptors.beforeCall(before);
    interceptors.afterCall({ headers: before.headers, ok: true });
    const exporter = new InMemorySpanExporter();
    proxy.setDelegate(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    const after = { method: 'SendMessage', params: {}, headers: {} as Record<string, string> };
    interceptors.beforeCall(after);
    interceptors.afterCall({ headers: after.headers, ok: true });
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(['lf.a2a.v1.A2AService/SendMessage']);
    expect(after.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  });
});
