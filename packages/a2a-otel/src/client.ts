import {
  context,
  type MeterProvider,
  metrics,
  type Span,
  SpanKind,
  type SpanOptions,
  SpanStatusCode,
  trace,
  type TracerProvider,
} from '@opentelemetry/api';
import {
  ATTR_CONTEXT_ID,
  ATTR_ERROR_TYPE,
  ATTR_OUTCOME,
  ATTR_RPC_METHOD,
  ATTR_SKILL_ID,
  ATTR_TASK_ID,
  operationSpanName,
} from './attributes.js';
import { createClientMetrics } from './metrics.js';
import type { CallEnd, CallInterceptors, CallStart } from './types.js';
import {
  createAttributeCache,
  createTracingCheck,
  INSTRUMENTATION_NAME,
  INSTRUMENTATION_VERSION,
  injectContext,
  methodLabel,
  metricsLive,
  outcomeOf,
  rpcAttributes,
} from './shared.js';

export interface ClientInstrumentationOptions {
  /** Default: the global tracer provider (a no-op until the application registers an SDK). */
  tracerProvider?: TracerProvider;
  /** Default: the global meter provider at the time of this call. */
  meterProvider?: MeterProvider;
}

interface CallRecord {
  span: Span;
  start: number;
  method: string;
}

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value.slice(0, 256) : undefined);

/** Task, context and skill ids a call's params name (a message's, or a task operation's `id`). */
function callAttributes(span: Span, call: CallStart): void {
  const params = call.params;
  const message = params.message as Record<string, unknown> | undefined;
  const taskId = str(message?.taskId) ?? str(params.id) ?? str(params.taskId);
  if (taskId !== undefined) span.setAttribute(ATTR_TASK_ID, taskId);
  const contextId = str(message?.contextId);
  if (contextId !== undefined) span.setAttribute(ATTR_CONTEXT_ID, contextId);
  const skill = str((message?.metadata as Record<string, unknown> | undefined)?.skillId);
  if (skill !== undefined) span.setAttribute(ATTR_SKILL_ID, skill);
}

/**
 * Client interceptors (decision record 0027): one CLIENT span per call (a stream: until it ends),
 * a child of the active span (say, the executor run that delegates), whose context the call sends
 * as W3C `traceparent` instead of the client's fresh span id; and the client metrics. Without a
 * registered SDK (no tracer provider, and the meter a no-op) no span is made: the active context,
 * if it carries a trace (an incoming `traceparent` the server continued), is what the call sends.
 */
export function createClientInterceptors(options: ClientInstrumentationOptions = {}): CallInterceptors {
  const tracer = (options.tracerProvider ?? trace).getTracer(INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION);
  const meter = (options.meterProvider ?? metrics).getMeter(INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION);
  const metered = metricsLive(meter);
  const m = createClientMetrics(meter);
  const traced = createTracingCheck(options.tracerProvider);
  const callOptions = new Map<string, { name: string; options: SpanOptions }>();
  const callOf = (method: string): { name: string; options: SpanOptions } => {
    let found = callOptions.get(method);
    if (found === undefined) {
      found = { name: operationSpanName(method), options: { kind: SpanKind.CLIENT, attributes: Object.freeze(rpcAttributes(method)) } };
      callOptions.set(method, found);
    }
    return found;
  };
  const labels = createAttributeCache((method, outcome) => ({ [ATTR_RPC_METHOD]: method, [ATTR_OUTCOME]: outcome }));
  // Keyed by the call's headers object, which the client hands to `afterCall` unchanged.
  const calls = new WeakMap<object, CallRecord>();
  return {
    beforeCall(call: CallStart) {
      const parent = context.active();
      if (!metered && !traced()) {
        injectContext(parent, call.headers);
        return;
      }
      const method = methodLabel(call.method);
      const { name, options: spanOptions } = callOf(method);
      const span = tracer.startSpan(name, spanOptions, parent);
      if (span.isRecording()) callAttributes(span, call);
      injectContext(trace.setSpan(parent, span), call.headers);
      calls.set(call.headers, { span, start: metered ? performance.now() : 0, method });
    },
    afterCall(outcome: CallEnd) {
      const record = calls.get(outcome.headers);
      if (record === undefined) return;
      calls.delete(outcome.headers);
      const { span, start, method } = record;
      const label = outcome.ok ? 'ok' : outcomeOf(outcome.error);
      if (metered) {
        const attributes = labels(method, label);
        m.requests.add(1, attributes);
        m.duration.record((performance.now() - start) / 1000, attributes);
      }
      if (span.isRecording()) {
        span.setAttribute(ATTR_OUTCOME, label);
        if (!outcome.ok) {
          span.setAttribute(ATTR_ERROR_TYPE, label);
          span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error instanceof Error ? outcome.error.message : 'call failed' });
        }
      }
      span.end();
    },
  };
}
