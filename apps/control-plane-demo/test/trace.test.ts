import { buildDelegationTree, flattenHops, orderSpans, readOtlpJson, type TraceSpan } from '@a2aplane/a2a-otel/read';
import { afterAll, describe, expect, it } from 'vitest';
import { createControlPlane } from '../src/control-plane.js';
import { runBoundedRecursion } from '../src/scenarios/bounded-recursion.js';
import { startDemoTracing } from '../src/tracing.js';
import { renderWaterfallSvg } from '../src/waterfall.js';

const tracing = startDemoTracing();
afterAll(() => tracing.shutdown());

const SERVER = 2;
const CLIENT = 3;

describe('the recursion scenario is one trace (OpenTelemetry, OTLP JSON)', () => {
  it('every task of the delegation tree is in one trace, linked caller run -> client call -> callee server -> callee run', async () => {
    const result = await runBoundedRecursion(await createControlPlane(), await createControlPlane(), { levels: 5, agents: 6, tracing });
    const spans = readOtlpJson(tracing.otlpJson(result.traceId));
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([result.traceId]));

    // One root: the demo's call to the root agent; every other span's parent is in the trace.
    const roots = spans.filter((span) => span.parentSpanId === undefined);
    expect(roots.map((span) => [span.kind, span.name])).toEqual([[CLIENT, 'lf.a2a.v1.A2AService/SendMessage']]);
    for (const span of spans) if (span.parentSpanId !== undefined) expect(byId.has(span.parentSpanId), span.name).toBe(true);

    const runs = spans.filter((span) => span.name.startsWith('invoke_agent '));
    expect(runs).toHaveLength(result.dispatched);
    const parentOf = (span: TraceSpan): TraceSpan => byId.get(span.parentSpanId as string) as TraceSpan;
    for (const run of runs) {
      const server = parentOf(run);
      expect(server.kind).toBe(SERVER);
      expect(server.attributes['gen_ai.agent.id']).toBe(run.attributes['gen_ai.agent.id']);
      const call = parentOf(server);
      expect(call.kind).toBe(CLIENT);
      const depth = run.attributes['a2a.lineage.depth'] as number;
      expect(run.attributes['a2a.lineage.trace_id']).toBe(result.traceId);
      if (depth === 0) {
        expect(call.parentSpanId).toBeUndefined();
        continue;
      }
      // The call was made inside the delegating agent's run, the previous agent of the lineage.
      const caller = parentOf(call);
      expect(caller.name.startsWith('invoke_agent ')).toBe(true);
      const visited = run.attributes['a2a.lineage.visited_agents'] as string[];
      expect(caller.attributes['gen_ai.agent.id']).toBe(visited[visited.length - 2]);
      expect(caller.attributes['a2a.lineage.depth']).toBe(depth - 1);
    }
    // Governance stages of every hop are in the trace too, with their decision.
    const stages = spans.filter((span) => span.name.startsWith('a2a.governance.'));
    expect(stages.filter((span) => span.name === 'a2a.governance.budget')).toHaveLength(
      spans.filter((span) => span.kind === SERVER).length,
    );

    // The waterfall draws every span, in tree order under the root call.
    expect(orderSpans(spans)).toHaveLength(spans.length);
    const svg = renderWaterfallSvg(spans, 'trace');
    expect(svg.match(/<rect /g)).toHaveLength(spans.length);

    // The delegation tree read back from the spans (what the console draws) has the scenario's runs and refusals.
    const hops = flattenHops(buildDelegationTree(spans));
    expect(hops.filter((hop) => hop.kind === 'served' && hop.outcome === 'completed')).toHaveLength(result.dispatched);
    const refused = hops.filter((hop) => hop.outcome === 'rejected');
    expect(refused.length).toBe(Object.values(result.rejectedByReason).reduce((a, b) => a + b, 0));
  }, 120_000);
});
