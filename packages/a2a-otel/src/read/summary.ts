import { ATTR_GEN_AI_AGENT_NAME } from '../attributes.js';
import { type BudgetStanding, buildDelegationTree, flattenHops } from './tree.js';
import { stringAttribute, type TraceSpan } from './spans.js';

/** What a list of traces shows of one. */
export interface TraceSummary {
  traceId: string;
  spanCount: number;
  /** Epoch milliseconds of the earliest span's start. */
  startMs: number;
  durationMs: number;
  /** The first root span's name. */
  rootName: string;
  /** Agents that served a hop (names, else ids), in order of first appearance. */
  agents: string[];
  hops: number;
  /** Refused hops (by an inbound governor or a dispatcher) and why. */
  refusals: Array<{ agent?: string; reason?: string }>;
  /** Spend the agents' runs reported (`a2a.cost.usd`), summed. */
  spentUsd: number;
  /** The last budget refusal's standing, when a budget refused. */
  budget?: BudgetStanding;
  errors: number;
}

/** A summary of one trace's spans (all with the same trace id; an empty list has none). */
export function summarizeTrace(spans: readonly TraceSpan[]): TraceSummary | undefined {
  const first = spans[0];
  if (first === undefined) return undefined;
  let t0 = first.startNs;
  let t1 = first.endNs;
  let root = first;
  for (const span of spans) {
    if (span.startNs < t0) t0 = span.startNs;
    if (span.endNs > t1) t1 = span.endNs;
    if (span.parentSpanId === undefined && (root.parentSpanId !== undefined || span.startNs < root.startNs)) root = span;
  }
  const hops = flattenHops(buildDelegationTree(spans));
  const agents: string[] = [];
  const summary: TraceSummary = {
    traceId: first.traceId,
    spanCount: spans.length,
    startMs: Number(t0 / 1_000_000n),
    durationMs: Number(t1 - t0) / 1e6,
    rootName: root.kind === 2 ? `${stringAttribute(root, ATTR_GEN_AI_AGENT_NAME) ?? root.service ?? ''} ${root.name}`.trim() : root.name,
    agents,
    hops: hops.length,
    refusals: [],
    spentUsd: 0,
    errors: spans.filter((span) => span.error).length,
  };
  for (const hop of hops) {
    const agent = hop.agentName ?? hop.agentId;
    if (hop.kind === 'served' && agent !== undefined && !agents.includes(agent)) agents.push(agent);
    if (hop.outcome === 'rejected')
      summary.refusals.push({ ...(agent === undefined ? {} : { agent }), ...(hop.reason === undefined ? {} : { reason: hop.reason }) });
    summary.spentUsd += hop.costUsd ?? 0;
    for (const decision of hop.decisions) if (decision.budget !== undefined) summary.budget = decision.budget;
  }
  return summary;
}
