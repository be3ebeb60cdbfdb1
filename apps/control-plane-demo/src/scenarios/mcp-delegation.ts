import type { Dispatcher } from '@a2aplane/a2a-routing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type HostedAgent, hostAgent } from '../agent-host.js';
import { createPlannerExecutor } from '../agents/planner.js';
import { createResearcherExecutor } from '../agents/researcher.js';
import {
  type AgentSummary,
  type ControlPlane,
  countSignedCalls,
  createDispatcher,
  createKeyDirectory,
  discoverPeers,
  type SignedCalls,
  summarizePeers,
} from '../control-plane.js';
import { PRICE_TOOL, startToolServer, type ToolServerCall } from '../mcp-tool-server.js';
import type { DemoTracing } from '../tracing.js';
import type { ScenarioOptions } from './remote-equals-local.js';

/** What each agent's task costs, what one MCP tool call costs (reported by the tool) and what the agent estimates it at. */
export const MCP_SCENARIO_COSTS = { agentUsd: 0.01, toolUsd: 0.004, toolEstimateUsd: 0.002 } as const;
const ITEMS = ['GPU hour', 'vector index'];

/** One MCP hop as the trace shows it. */
export interface McpHop {
  item: string;
  /** The `tools/call` span is a child of the researcher's run (`invoke_agent`), in the A2A trace. */
  underRun: boolean;
  /** The MCP server's span is a child of that `tools/call` span (it continued the trace from `_meta.traceparent`). */
  serverSpanUnderCall: boolean;
  /** The cost on the `tools/call` span (`a2a.cost.usd`). */
  costUsd: number | undefined;
  /** The MCP server received the A2A trace id in `_meta.traceparent` and the lineage in our namespace. */
  traceCarried: boolean;
}

export interface McpDelegationResult {
  passed: boolean;
  traceId: string;
  /** The MCP server (official SDK, Streamable HTTP) and its tool. */
  toolServer: { url: string; tool: string };
  hops: McpHop[];
  /** The planner's answer: the prices the researcher got from the MCP tool. */
  prices: string[];
  /** Spend over the trace (the shared spend aggregator) and what it must be: the two agents' tasks plus every tool call. */
  spendUsd: number;
  expectedSpendUsd: number;
  /** Of which the MCP tool calls, as the governed client metered them. */
  toolSpendUsd: number;
  signedCalls: SignedCalls;
  agents: AgentSummary[];
}

/** The spans of the run, as the scenario reads them from the tracer (kind 1 server, 2 client: the OTel API's numbering). */
interface SpanView {
  name: string;
  spanId: string;
  parentSpanId: string | undefined;
  kind: number;
  attributes: Record<string, unknown>;
}

function hopsOf(spans: readonly SpanView[], calls: readonly ToolServerCall[], traceId: string): McpHop[] {
  const byId = new Map(spans.map((span) => [span.spanId, span]));
  const clientCalls = spans.filter((span) => span.attributes['mcp.method.name'] === 'tools/call' && span.kind === 2);
  return calls.map((call, index) => {
    const span = clientCalls[index];
    const parent = span?.parentSpanId ? byId.get(span.parentSpanId) : undefined;
    const server = spans.find((s) => s.kind === 1 && s.attributes['mcp.method.name'] === 'tools/call' && s.parentSpanId === span?.spanId);
    const cost = span?.attributes['a2a.cost.usd'];
    return {
      item: call.item,
      underRun: parent?.name === 'invoke_agent researcher',
      serverSpanUnderCall: server !== undefined,
      costUsd: typeof cost === 'number' ? cost : undefined,
      traceCarried: call.lineage && call.traceparent?.split('-')[1] === traceId,
    };
  });
}

/**
 * MCP inside a delegation (issue 40): the demo calls a planner agent, which delegates to a
 * researcher agent (signed A2A call through its dispatcher); the researcher prices two items with
 * an MCP tool (a real MCP server on 127.0.0.1, Streamable HTTP) through a2a-mcp's governed client.
 * Each MCP hop carries the A2A trace (`_meta.traceparent` and the lineage), is a span under the
 * researcher's run, and its cost is metered into the researcher's governed task, so the spend over
 * the trace is both agents' tasks plus every tool call.
 */
export async function runMcpDelegation(
  plane: ControlPlane,
  options: ScenarioOptions & { tracing: DemoTracing },
): Promise<McpDelegationResult> {
  options.signal?.throwIfAborted();
  const { tracing } = options;
  const costs = MCP_SCENARIO_COSTS;
  options.onProgress?.('scenario 7: starting an MCP server, a planner and a researcher agent');
  const tools = await startToolServer({ costUsd: costs.toolUsd, tracer: tracing.tracer });
  const mcp = new Client({ name: 'researcher', version: '1.0.0' });
  const agents: HostedAgent[] = [];
  try {
    await mcp.connect(new StreamableHTTPClientTransport(new URL(tools.url)));
    const keys = createKeyDirectory(['planner', 'researcher']);
    const dispatchers = new Map<string, Dispatcher>();
    const common = {
      callerKeys: keys.publicKeys,
      governor: (agentId: string) => plane.governorFor(agentId, undefined, tracing.governanceHooks),
      estimatedCostUsd: costs.agentUsd,
      instrumentation: tracing.serverFor,
    };
    const researcher = await hostAgent({
      ...common,
      name: 'researcher',
      key: keys.keyOf('researcher'),
      skill: { id: 'work', name: 'Research', description: 'Prices items with an MCP tool.', tags: ['demo', 'mcp'] },
      executor: () =>
        createResearcherExecutor({
          mcp,
          tool: PRICE_TOOL,
          toolEstimateUsd: costs.toolEstimateUsd,
          costUsd: costs.agentUsd,
          tracer: tracing.tracer,
        }),
    });
    agents.push(researcher);
    const planner = await hostAgent({
      ...common,
      name: 'planner',
      key: keys.keyOf('planner'),
      skill: { id: 'delegate', name: 'Plan', description: 'Delegates the pricing.', tags: ['demo'] },
      executor: ({ agentId }) =>
        createPlannerExecutor({
          self: { agentId },
          dispatcher: () => dispatchers.get(agentId) as Dispatcher,
          delegate: () => researcher.agentId,
          items: ITEMS,
          costUsd: costs.agentUsd,
        }),
    });
    agents.push(planner);
    const peers = await discoverPeers(agents, { as: keys.demo, clientOptions: () => ({ interceptors: tracing.clientInterceptors }) });
    dispatchers.set(planner.agentId, createDispatcher(plane, planner, peers, tracing.governanceHooks));
    options.onAgents?.(summarizePeers(peers));

    options.onProgress?.('scenario 7: the planner delegates to the researcher, which calls the MCP tool');
    const response = await peers.get(planner.agentId)!.client.sendMessage(
      {
        message: {
          messageId: globalThis.crypto.randomUUID(),
          role: 'ROLE_USER',
          parts: [{ text: 'price the items' }],
          metadata: { skillId: 'delegate' },
        },
      },
      { timeoutMs: 120_000, ...(options.signal ? { signal: options.signal } : {}) },
    );
    const plan = response.task?.artifacts?.find((artifact) => artifact.artifactId === 'plan')?.parts[0]?.data as
      | { prices: { prices?: string[]; toolSpendUsd?: number } | null; traceId?: string }
      | undefined;
    const traceId = plan?.traceId ?? '';
    const spans: SpanView[] = tracing.spansOf(traceId).map((span) => ({
      name: span.name,
      spanId: span.spanContext().spanId,
      parentSpanId: span.parentSpanContext?.spanId,
      kind: span.kind,
      attributes: { ...span.attributes },
    }));
    const hops = hopsOf(spans, tools.calls, traceId);
    const spendUsd = plane.spend.byTrace(traceId).usd;
    const expectedSpendUsd = 2 * costs.agentUsd + ITEMS.length * costs.toolUsd;
    const signedCalls = countSignedCalls(agents, keys.demoAgentId);
    const passed =
      response.task?.status.state === 'TASK_STATE_COMPLETED' &&
      hops.length === ITEMS.length &&
      hops.every((hop) => hop.underRun && hop.serverSpanUnderCall && hop.traceCarried && hop.costUsd === costs.toolUsd) &&
      Math.abs(spendUsd - expectedSpendUsd) < 1e-9 &&
      signedCalls.verified === signedCalls.requests &&
      signedCalls.betweenAgents === 1;
    return {
      passed,
      traceId,
      toolServer: { url: tools.url, tool: PRICE_TOOL },
      hops,
      prices: plan?.prices?.prices ?? [],
      spendUsd,
      expectedSpendUsd,
      toolSpendUsd: plan?.prices?.toolSpendUsd ?? 0,
      signedCalls,
      agents: summarizePeers(peers),
    };
  } finally {
    await Promise.all(agents.map((agent) => agent.close()));
    await mcp.close();
    await tools.close();
  }
}
