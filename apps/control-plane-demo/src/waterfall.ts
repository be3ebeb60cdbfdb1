import { escapeXml } from './delegation-tree.js';

/** One span as the waterfall draws it, read back from the OTLP JSON the demo wrote. */
export interface WaterfallSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP `SpanKind`: 1 internal, 2 server, 3 client. */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  error: boolean;
  attributes: Record<string, unknown>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}

function attributeValue(value: OtlpValue | undefined): unknown {
  if (value === undefined) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(attributeValue);
  return undefined;
}

/** The spans of an OTLP JSON `ExportTraceServiceRequest` (hex ids, nanosecond times as strings). */
export function spansFromOtlpJson(json: string): WaterfallSpan[] {
  const request = JSON.parse(json) as {
    resourceSpans?: Array<{
      scopeSpans?: Array<{
        spans?: Array<{
          traceId: string;
          spanId: string;
          parentSpanId?: string;
          name: string;
          kind: number;
          startTimeUnixNano: string | number;
          endTimeUnixNano: string | number;
          attributes?: Array<{ key: string; value: OtlpValue }>;
          status?: { code?: number };
        }>;
      }>;
    }>;
  };
  const out: WaterfallSpan[] = [];
  for (const resource of request.resourceSpans ?? []) {
    for (const scope of resource.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        const attributes: Record<string, unknown> = {};
        for (const attribute of span.attributes ?? []) attributes[attribute.key] = attributeValue(attribute.value);
        out.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ? span.parentSpanId : undefined,
          name: span.name,
          kind: span.kind,
          startNs: BigInt(span.startTimeUnixNano),
          endNs: BigInt(span.endTimeUnixNano),
          error: span.status?.code === 2,
          attributes,
        });
      }
    }
  }
  return out;
}

/** Spans in tree order (depth-first, children by start time), with their depth; orphans start new roots. */
export function orderSpans(spans: readonly WaterfallSpan[]): Array<{ span: WaterfallSpan; depth: number }> {
  const byId = new Set(spans.map((s) => s.spanId));
  const children = new Map<string | undefined, WaterfallSpan[]>();
  for (const span of spans) {
    const parent = span.parentSpanId !== undefined && byId.has(span.parentSpanId) ? span.parentSpanId : undefined;
    const list = children.get(parent) ?? [];
    list.push(span);
    children.set(parent, list);
  }
  for (const list of children.values()) list.sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0));
  const out: Array<{ span: WaterfallSpan; depth: number }> = [];
  const stack: Array<{ span: WaterfallSpan; depth: number }> = (children.get(undefined) ?? [])
    .map((span) => ({ span, depth: 0 }))
    .reverse();
  while (stack.length > 0) {
    const item = stack.pop() as { span: WaterfallSpan; depth: number };
    out.push(item);
    const kids = children.get(item.span.spanId) ?? [];
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ span: kids[i] as WaterfallSpan, depth: item.depth + 1 });
  }
  return out;
}

const KIND_COLOR: Record<number, string> = { 2: '#4e79a7', 3: '#9c9c9c' };

/** What a row is called: the agent and method of a server span, the stage and decision of a governance span. */
function label(span: WaterfallSpan): string {
  const a = span.attributes;
  const agent = typeof a['gen_ai.agent.name'] === 'string' ? (a['gen_ai.agent.name'] as string) : '';
  const method = span.name.replace('lf.a2a.v1.A2AService/', '');
  if (a['mcp.method.name'] !== undefined) {
    const cost = typeof a['a2a.cost.usd'] === 'number' ? ` $${(a['a2a.cost.usd'] as number).toFixed(3)}` : '';
    return span.kind === 2 ? `MCP server ← ${span.name}` : `→ MCP ${span.name}${cost}`;
  }
  if (span.kind === 2) return `${agent} ← ${method}`;
  if (span.kind === 3) return `→ ${method}`;
  if (span.name.startsWith('a2a.governance.')) {
    const reason = a['a2a.governance.reason'];
    return `${span.name.slice('a2a.governance.'.length)}: ${String(a['a2a.governance.decision'] ?? '')}${reason ? ` (${String(reason)})` : ''}`;
  }
  return span.name;
}

/**
 * The trace as a waterfall (SVG): one row per span in tree order, indented by nesting, its bar
 * placed on the trace's time axis. Server spans blue, client calls grey, executor runs green,
 * governance stages orange, MCP tool calls purple (with their cost); a refusal or an error is red. Hover a row for its attributes.
 */
export function renderWaterfallSvg(spans: readonly WaterfallSpan[], title: string): string {
  const rows = orderSpans(spans);
  if (rows.length === 0) return `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="30"><text x="4" y="20">no spans</text></svg>`;
  let t0 = (rows[0] as { span: WaterfallSpan }).span.startNs;
  let t1 = (rows[0] as { span: WaterfallSpan }).span.endNs;
  for (const { span } of rows) {
    if (span.startNs < t0) t0 = span.startNs;
    if (span.endNs > t1) t1 = span.endNs;
  }
  const total = Math.max(1, Number(t1 - t0));
  const labelWidth = 360;
  const barsWidth = 900;
  const rowHeight = 14;
  const top = 40;
  const width = labelWidth + barsWidth + 20;
  const height = top + rows.length * rowHeight + 10;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="monospace" font-size="10">`,
    `<text x="4" y="16" font-size="13" font-family="sans-serif">${escapeXml(title)}</text>`,
    `<text x="${labelWidth}" y="32" fill="#666">0 ms</text>`,
    `<text x="${labelWidth + barsWidth}" y="32" fill="#666" text-anchor="end">${(total / 1e6).toFixed(1)} ms</text>`,
  ];
  rows.forEach(({ span, depth }, index) => {
    const y = top + index * rowHeight;
    const x = labelWidth + (Number(span.startNs - t0) / total) * barsWidth;
    const w = Math.max(1, (Number(span.endNs - span.startNs) / total) * barsWidth);
    const refused = span.attributes['a2a.governance.decision'] !== undefined && span.attributes['a2a.governance.decision'] !== 'accepted';
    const color =
      span.error || refused
        ? '#e15759'
        : span.attributes['mcp.method.name'] !== undefined
          ? '#b07aa1'
          : span.name.startsWith('invoke_agent')
            ? '#59a14f'
            : span.name.startsWith('a2a.governance.')
              ? '#f28e2b'
              : (KIND_COLOR[span.kind] ?? '#76b7b2');
    const details = Object.entries(span.attributes)
      .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(',') : String(v)}`)
      .join('\n');
    const ms = (Number(span.endNs - span.startNs) / 1e6).toFixed(2);
    parts.push(
      `<g><title>${escapeXml(`${span.name} (${ms} ms)\n${details}`)}</title>` +
        `<text x="${4 + Math.min(depth, 24) * 8}" y="${y + 10}">${escapeXml(label(span).slice(0, 48))}</text>` +
        `<rect x="${x.toFixed(1)}" y="${y + 2}" width="${w.toFixed(1)}" height="${rowHeight - 4}" fill="${color}"/></g>`,
    );
  });
  parts.push('</svg>');
  return parts.join('\n');
}
