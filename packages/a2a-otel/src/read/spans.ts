/** An attribute value as OTLP carries it (bytes and key-value lists are not kept). */
export type SpanAttributeValue = string | number | boolean | readonly SpanAttributeValue[];

/** One span read from OTLP JSON, every field checked (see `readOtlpTraces`). */
export interface TraceSpan {
  /** 32 lowercase hex digits. */
  readonly traceId: string;
  /** 16 lowercase hex digits. */
  readonly spanId: string;
  /** Absent for a root span. */
  readonly parentSpanId: string | undefined;
  readonly name: string;
  /** OTLP `SpanKind`: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly kind: number;
  readonly startNs: bigint;
  readonly endNs: bigint;
  /** The span's status is ERROR. */
  readonly error: boolean;
  readonly statusMessage: string | undefined;
  readonly attributes: Readonly<Record<string, SpanAttributeValue>>;
  /** The resource's `service.name`, when the exporter set one. */
  readonly service: string | undefined;
}

export const SPAN_KIND_SERVER = 2;
export const SPAN_KIND_CLIENT = 3;

const byStart = (a: TraceSpan, b: TraceSpan): number => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0);

/** The spans under each parent id, by start time; spans whose parent is absent sit under `undefined`. */
export function childrenByParent(spans: readonly TraceSpan[]): Map<string | undefined, TraceSpan[]> {
  const ids = new Set(spans.map((span) => span.spanId));
  const children = new Map<string | undefined, TraceSpan[]>();
  for (const span of spans) {
    const parent = span.parentSpanId !== undefined && ids.has(span.parentSpanId) ? span.parentSpanId : undefined;
    const list = children.get(parent);
    if (list === undefined) children.set(parent, [span]);
    else list.push(span);
  }
  for (const list of children.values()) list.sort(byStart);
  return children;
}

/** Spans in tree order (depth-first, children by start time), with their depth; orphans start new roots. */
export function orderSpans(spans: readonly TraceSpan[]): Array<{ span: TraceSpan; depth: number }> {
  const children = childrenByParent(spans);
  const out: Array<{ span: TraceSpan; depth: number }> = [];
  const stack = (children.get(undefined) ?? []).map((span) => ({ span, depth: 0 })).reverse();
  // Each span sits in one parent's list, so none is visited twice; spans in a parent cycle are never reached.
  while (stack.length > 0) {
    const item = stack.pop() as { span: TraceSpan; depth: number };
    out.push(item);
    const kids = children.get(item.span.spanId) ?? [];
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ span: kids[i] as TraceSpan, depth: item.depth + 1 });
  }
  return out;
}

/** A string attribute, or `undefined`. */
export function stringAttribute(span: TraceSpan, key: string): string | undefined {
  const value = span.attributes[key];
  return typeof value === 'string' ? value : undefined;
}

/** A finite number attribute, or `undefined`. */
export function numberAttribute(span: TraceSpan, key: string): number | undefined {
  const value = span.attributes[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
