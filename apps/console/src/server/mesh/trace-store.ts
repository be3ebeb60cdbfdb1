import { summarizeTrace, type TraceSpan, type TraceSummary } from '@a2aplane/a2a-otel/read';

export interface TraceStoreOptions {
  /** Traces kept; past it the least recently updated is evicted. Default 200. */
  maxTraces?: number;
  /** Spans kept per trace; further spans of a full trace are dropped (and reported). Default 2000. */
  maxSpansPerTrace?: number;
  /** Spans kept over all traces; past it the least recently updated traces are evicted. Default 50 000. */
  maxSpans?: number;
}

export interface TraceStore {
  /** Keeps `spans` (a span seen again replaces the copy kept: an exporter's retry); answers how many were dropped. */
  add(spans: readonly TraceSpan[]): { dropped: number };
  /** Summaries, most recently updated first. */
  list(): TraceSummary[];
  get(traceId: string): TraceSpan[] | undefined;
  readonly size: number;
}

interface StoredTrace {
  spans: Map<string, TraceSpan>;
  summary: TraceSummary | undefined;
}

/**
 * The console's memory of traces: bounded by trace count, spans per trace and spans overall, the
 * least recently updated trace evicted first (a Map in update order). Summaries are made on
 * demand and kept until the trace changes.
 */
export function createTraceStore(options: TraceStoreOptions = {}): TraceStore {
  const maxTraces = options.maxTraces ?? 200;
  const maxSpansPerTrace = options.maxSpansPerTrace ?? 2000;
  const maxSpans = options.maxSpans ?? 50_000;
  const traces = new Map<string, StoredTrace>();
  let total = 0;

  const evict = (): void => {
    for (const [traceId, trace] of traces) {
      if (traces.size <= maxTraces && total <= maxSpans) return;
      traces.delete(traceId);
      total -= trace.spans.size;
    }
  };

  return {
    add(spans) {
      let dropped = 0;
      for (const span of spans) {
        let trace = traces.get(span.traceId);
        if (trace === undefined) trace = { spans: new Map(), summary: undefined };
        // Re-inserted: the Map's order is the update order that eviction follows.
        traces.delete(span.traceId);
        traces.set(span.traceId, trace);
        if (!trace.spans.has(span.spanId)) {
          if (trace.spans.size >= maxSpansPerTrace) {
            dropped += 1;
            continue;
          }
          total += 1;
        }
        trace.spans.set(span.spanId, span);
        trace.summary = undefined;
      }
      evict();
      return { dropped };
    },
    list() {
      const out: TraceSummary[] = [];
      for (const trace of [...traces.values()].reverse()) {
        trace.summary ??= summarizeTrace([...trace.spans.values()]);
        if (trace.summary !== undefined) out.push(trace.summary);
      }
      return out;
    },
    get(traceId) {
      const trace = traces.get(traceId);
      return trace === undefined ? undefined : [...trace.spans.values()];
    },
    get size() {
      return traces.size;
    },
  };
}
