import { afterAll, describe, expect, it } from 'vitest';
import { createControlPlane } from '../src/control-plane.js';
import { MCP_SCENARIO_COSTS, runMcpDelegation } from '../src/scenarios/mcp-delegation.js';
import { startDemoTracing } from '../src/tracing.js';
import { orderSpans, readOtlpJson } from '@a2aplane/a2a-otel/read';
import { renderWaterfallSvg } from '../src/waterfall.js';

const tracing = startDemoTracing();
afterAll(() => tracing.shutdown());

const SERVER = 2;
const CLIENT = 3;

describe('MCP inside a delegation (issue 40): one trace, one budget', () => {
  it('the MCP hops are spans under the researcher run, carry the trace to the MCP server, and their cost is in the spend of the trace', async () => {
    const plane = await createControlPlane();
    const result = await runMcpDelegation(plane, { tracing });
    expect(result.prices).toEqual(['GPU hour: $10.00', 'vector index: $15.00']);
    expect(result.hops).toHaveLength(2);
    for (const hop of result.hops) {
      expect(hop).toMatchObject({ underRun: true, serverSpanUnderCall: true, traceCarried: true, costUsd: MCP_SCENARIO_COSTS.toolUsd });
    }

    // Read back from the OTLP JSON the report writes: the MCP client spans sit in the A2A trace,
    // under the researcher's run, itself under the planner's call; the MCP server's span under each.
    const spans = readOtlpJson(tracing.otlpJson(result.traceId));
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const parent = (id: string | undefined) => (id === undefined ? undefined : byId.get(id));
    const mcpCalls = spans.filter((span) => span.kind === CLIENT && span.attributes['mcp.method.name'] === 'tools/call');
    expect(mcpCalls).toHaveLength(2);
    for (const call of mcpCalls) {
      expect(call.traceId).toBe(result.traceId);
      expect(call.attributes['a2a.cost.usd']).toBe(MCP_SCENARIO_COSTS.toolUsd);
      const run = parent(call.parentSpanId);
      expect(run?.name).toBe('invoke_agent researcher');
      const server = parent(run?.parentSpanId);
      expect(server?.kind).toBe(SERVER);
      const delegation = parent(server?.parentSpanId);
      expect(delegation?.kind).toBe(CLIENT);
      expect(parent(delegation?.parentSpanId)?.name).toBe('invoke_agent planner');
      expect(spans.filter((span) => span.parentSpanId === call.spanId && span.kind === SERVER)).toHaveLength(1);
    }
    // The waterfall draws the MCP hops with their cost.
    expect(orderSpans(spans)).toHaveLength(spans.length);
    const svg = renderWaterfallSvg(spans, 'trace');
    expect(svg.match(/→ MCP tools\/call price \$0\.004/g)).toHaveLength(2);

    // Metered into the governed task: the spend over the trace is both tasks plus every tool call,
    // the tool's reported cost (above the agent's estimate) included.
    const expected = 2 * MCP_SCENARIO_COSTS.agentUsd + 2 * MCP_SCENARIO_COSTS.toolUsd;
    expect(result.toolSpendUsd).toBeCloseTo(2 * MCP_SCENARIO_COSTS.toolUsd, 12);
    expect(result.spendUsd).toBeCloseTo(expected, 12);
    expect(plane.spend.byTrace(result.traceId).usd).toBeCloseTo(expected, 12);
    expect(result.signedCalls).toEqual({ requests: 2, verified: 2, betweenAgents: 1 });
    expect(result.passed).toBe(true);
  });
});
