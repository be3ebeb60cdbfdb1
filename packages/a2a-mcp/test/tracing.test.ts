import { createA2AClient } from '@a2aplane/a2a-client';
import { createInMemoryBudgetLedger, Governor, parseTraceparent } from '@a2aplane/a2a-governance';
import { createServerInstrumentation } from '@a2aplane/a2a-otel';
import { createTaskUpdater } from '@a2aplane/a2a-server-express';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createGovernedMcpClient, executorTask } from '../src/index.js';
import { type RunningAgent, startAgent } from './helpers.js';
import { startToolServer, type ToolServer } from './tool-server.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
let tools: ToolServer;
let mcp: Client;
let agent: RunningAgent;

beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  tools = await startToolServer();
  mcp = new Client({ name: 'executor', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(tools.url)));
  agent = await startAgent(
    {
      async execute(ctx, events) {
        const task = createTaskUpdater(ctx, events);
        task.submit();
        const governed = createGovernedMcpClient({
          client: mcp,
          task: executorTask(ctx, events),
          estimate: () => ({ usd: 0.5, tokens: 12 }),
          tracer: trace.getTracer('a2a-mcp-test'),
        });
        const result = await governed.callTool({ name: 'lookup', arguments: { q: 'x' } });
        task.complete((result.content as { text: string }[])[0]?.text ?? '');
      },
    },
    {
      skillId: 'work',
      server: {
        governance: new Governor({ selfAgentId: 'agent-a', budget: createInMemoryBudgetLedger({ maxUsdPerMinute: 10 }) }),
        instrumentation: createServerInstrumentation({ agentId: 'agent-a', agentName: 'A' }),
      },
    },
  );
});
afterAll(async () => {
  await agent?.close();
  await mcp?.close();
  await tools?.close();
  trace.disable();
  context.disable();
});

it("puts the MCP call under the executor's run span, with its cost, in the A2A trace the MCP server sees", async () => {
  const client = createA2AClient({ baseUrl: agent.url });
  const sent = await client.sendMessage({ message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'go' }] } });
  expect(sent.task?.status.state).toBe('TASK_STATE_COMPLETED');
  await expect.poll(() => exporter.getFinishedSpans().some((s) => s.name === 'invoke_agent A')).toBe(true);
  const spans = exporter.getFinishedSpans();
  const run = spans.find((s) => s.name === 'invoke_agent A');
  const hop = spans.find((s) => s.name === 'tools/call lookup');
  expect(hop?.parentSpanContext?.spanId).toBe(run?.spanContext().spanId);
  expect(hop?.spanContext().traceId).toBe(run?.spanContext().traceId);
  expect(hop?.attributes).toMatchObject({ 'gen_ai.tool.name': 'lookup', 'a2a.cost.usd': 0.5, 'a2a.usage.tokens': 12 });
  // The executor's reported usage is the run's: the MCP hop's cost is in the governed task.
  expect(run?.attributes).toMatchObject({ 'a2a.cost.usd': 0.5, 'a2a.usage.tokens': 12 });
  const seen = parseTraceparent((tools.calls[0] as { traceparent: string }).traceparent);
  expect(seen).toMatchObject({ traceId: run?.spanContext().traceId, parentId: hop?.spanContext().spanId, flags: '01' });
  const lineage = (tools.calls[0] as { ruvector: { context: { trace_id: string } } }).ruvector.context;
  expect(lineage.trace_id).toBe(run?.spanContext().traceId);
});
