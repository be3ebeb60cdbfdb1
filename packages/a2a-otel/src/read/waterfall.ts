import { ATTR_GEN_AI_AGENT_NAME, ATTR_GOVERNANCE_DECISION, ATTR_GOVERNANCE_REASON, RPC_SERVICE } from '../attributes.js';
import { orderSpans, SPAN_KIND_CLIENT, SPAN_KIND_SERVER, stringAttribute, type TraceSpan } from './spans.js';

/** One row of a trace waterfall: the span, its nesting, and its bar on the trace's time axis (fractions of the whole). */
export interface WaterfallRow {
  span: TraceSpan;
  depth: number;
  /** Start of the bar, 0..1 of the trace's duration. */
  offset: number;
  /** Width of the bar, 0..1 (zero-length spans included). */
  width: number;
  /** What the row is called: the agent and method of a server span, the stage and decision of a governance span. */
  label: string;
  /** Server spans blue, client calls grey, executor runs green, governance stages orange, MCP tool calls purple; a refusal or an error red. */
  color: string;
  /** A governance stage that did not accept. */
  refused: boolean;
  durationMs: number;
}

export interface Waterfall {
  rows: WaterfallRow[];
  totalMs: number;
}

const KIND_COLOR: Record<number, string> = { [SPAN_KIND_SERVER]: '#4e79a7', [SPAN_KIND_CLIENT]: '#9c9c9c' };

/** An MCP tool call (a2a-mcp's governed client) or the MCP server's own span: the `mcp.method.name` attribute. */
function isMcp(span: TraceSpan): boolean {
  return span.attributes['mcp.method.name'] !== undefined;
}

function labelOf(span: TraceSpan): string {
  if (isMcp(span)) {
    const cost = span.attributes['a2a.cost.usd'];
    const priced = typeof cost === 'number' ? ` $${cost.toFixed(3)}` : '';
    return span.kind === SPAN_KIND_SERVER ? `MCP server ← ${span.name}` : `→ MCP ${span.name}${priced}`;
  }
  const method = span.name.replace(`${RPC_SERVICE}/`, '');
  if (span.kind === SPAN_KIND_SERVER) return `${stringAttribute(span, ATTR_GEN_AI_AGENT_NAME) ?? span.service ?? ''} ← ${method}`;
  if (span.kind === SPAN_KIND_CLIENT) return `→ ${method}`;
  if (span.name.startsWith('a2a.governance.')) {
    const reason = stringAttribute(span, ATTR_GOVERNANCE_REASON);
    return `${span.name.slice('a2a.governance.'.length)}: ${stringAttribute(span, ATTR_GOVERNANCE_DECISION) ?? ''}${reason ? ` (${reason})` : ''}`;
  }
  return span.name;
}

/** A trace as waterfall rows, in tree order: what the demo report's SVG and the console draw. */
export function waterfall(spans: readonly TraceSpan[]): Waterfall {
  const ordered = orderSpans(spans);
  if (ordered.length === 0) return { rows: [], totalMs: 0 };
  let t0 = (ordered[0] as { span: TraceSpan }).span.startNs;
  let t1 = (ordered[0] as { span: TraceSpan }).span.endNs;
  for (const { span } of ordered) {
    if (span.startNs < t0) t0 = span.startNs;
    if (span.endNs > t1) t1 = span.endNs;
  }
  const total = Math.max(1, Number(t1 - t0));
  const rows = ordered.map(({ span, depth }): WaterfallRow => {
    const decision = span.attributes[ATTR_GOVERNANCE_DECISION];
    const refused = decision !== undefined && decision !== 'accepted';
    const color =
      span.error || refused
        ? '#e15759'
        : isMcp(span)
          ? '#b07aa1'
          : span.name.startsWith('invoke_agent')
            ? '#59a14f'
            : span.name.startsWith('a2a.governance.')
              ? '#f28e2b'
              : (KIND_COLOR[span.kind] ?? '#76b7b2');
    return {
      span,
      depth,
      offset: Number(span.startNs - t0) / total,
      width: Number(span.endNs - span.startNs) / total,
      label: labelOf(span),
      color,
      refused,
      durationMs: Number(span.endNs - span.startNs) / 1e6,
    };
  });
  return { rows, totalMs: Number(t1 - t0) / 1e6 };
}
