import { A2AError, isA2AMethod, parseTraceparent } from '@a2aplane/a2a-types';
import {
  type Attributes,
  type Context,
  context,
  createContextKey,
  createNoopMeter,
  isSpanContextValid,
  type Meter,
  ProxyTracerProvider,
  propagation,
  ROOT_CONTEXT,
  TraceFlags,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { ATTR_RPC_METHOD, ATTR_RPC_SERVICE, ATTR_RPC_SYSTEM, RPC_SERVICE, RPC_SYSTEM } from './attributes.js';

export const INSTRUMENTATION_NAME = '@a2aplane/a2a-otel';
export const INSTRUMENTATION_VERSION = '0.1.0';

/** The method as an attribute value: an A2A method name, else `unknown` (callers pick the name; labels stay bounded). */
export const methodLabel = (method: unknown): string => (isA2AMethod(method) ? method : 'unknown');

export const rpcAttributes = (method: string): Attributes => ({
  [ATTR_RPC_SYSTEM]: RPC_SYSTEM,
  [ATTR_RPC_SERVICE]: RPC_SERVICE,
  [ATTR_RPC_METHOD]: method,
});

/** The API's no-op provider: what a proxy without a delegate hands out. */
const NOOP_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();

/** Whether the global tracer provider can record: not while it is the API's proxy with no SDK behind it. */
function globalTracingLive(): boolean {
  const current = trace.getTracerProvider();
  return !(current instanceof ProxyTracerProvider) || current.getDelegate() !== NOOP_TRACER_PROVIDER;
}

const ALWAYS = (): boolean => true;

/**
 * Whether spans of this provider (default: the global one) can record now, decided as far as it can
 * be once: a provider given that is not a proxy always records. A proxy (the global one, or one
 * given) records once an SDK is behind it, which an application may register after making the
 * instrumentation, so that part is asked per call: a property read and a comparison, no allocation.
 */
export function createTracingCheck(provider: TracerProvider | undefined): () => boolean {
  if (provider === undefined) return globalTracingLive;
  if (!(provider instanceof ProxyTracerProvider)) return ALWAYS;
  return () => provider.getDelegate() !== NOOP_TRACER_PROVIDER;
}

/**
 * Whether instruments of this meter record anything: false for the API's no-op meter (no meter
 * provider registered when the instrumentation was made). Decided once: the metrics API has no
 * proxy, so instruments made on the no-op meter stay no-ops.
 */
export const metricsLive = (meter: Meter): boolean => meter !== createNoopMeter();

const PROBE = ROOT_CONTEXT.setValue(createContextKey('@a2aplane/a2a-otel probe'), true);
const probeIsActive = (): boolean => context.active() === PROBE;

/**
 * Whether a context manager is registered: the API's no-op one runs `context.with` without making
 * the context active, and then there is no context to carry (asked per request, as the SDK may
 * come later; a few calls, where reading the request's headers costs a flattened copy of them).
 */
export const contextManaged = (): boolean => context.with(PROBE, probeIsActive);

/** Per-key cache of small frozen attribute sets (metric labels), bounded so that odd keys cannot grow it. */
export function createAttributeCache(make: (a: string, b: string) => Attributes, limit = 256): (a: string, b?: string) => Attributes {
  const cache = new Map<string, Map<string, Attributes>>();
  let size = 0;
  return (a, b = '') => {
    let inner = cache.get(a);
    const hit = inner?.get(b);
    if (hit !== undefined) return hit;
    const made = Object.freeze(make(a, b));
    if (size >= limit) return made;
    if (inner === undefined) {
      inner = new Map();
      cache.set(a, inner);
    }
    inner.set(b, made);
    size += 1;
    return made;
  };
}

/** A bounded outcome label: the A2A error reason, else the error's class name, else `error`. */
export function outcomeOf(error: unknown): string {
  if (A2AError.isInstance(error)) return (error as A2AError).reason;
  if (error instanceof Error && /^[A-Za-z][A-Za-z0-9]{0,63}$/.test(error.name)) return error.name;
  return 'error';
}

/** The active span's trace id when it is a real (valid) one. */
export function traceIdOf(ctx: Context): string | undefined {
  const spanContext = trace.getSpanContext(ctx);
  return spanContext !== undefined && isSpanContextValid(spanContext) ? spanContext.traceId : undefined;
}

/**
 * The parent of a server span: the active span when one is there (an HTTP instrumentation made it),
 * else the caller's context from the headers through the global propagator, else (no propagator
 * registered) the W3C `traceparent` read directly, since A2A lineage is W3C trace context.
 */
export function withRemoteParent(active: Context, headers: Record<string, string | undefined> | undefined): Context {
  if (headers === undefined || trace.getSpanContext(active) !== undefined) return active;
  const extracted = propagation.extract(active, headers);
  if (trace.getSpanContext(extracted) !== undefined) return extracted;
  const raw = headers.traceparent;
  const parsed = raw === undefined ? undefined : parseTraceparent(raw);
  if (parsed === undefined) return extracted;
  const sampled = (Number.parseInt(parsed.flags, 16) & TraceFlags.SAMPLED) === TraceFlags.SAMPLED;
  return trace.setSpanContext(extracted, {
    traceId: parsed.traceId,
    spanId: parsed.parentId,
    traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
    isRemote: true,
  });
}

/** Writes the span context to the headers: the global propagator, then W3C `traceparent` if it wrote none. */
export function injectContext(ctx: Context, headers: Record<string, string>): void {
  const spanContext = trace.getSpanContext(ctx);
  if (spanContext === undefined || !isSpanContextValid(spanContext)) return;
  propagation.inject(ctx, headers);
  if (Object.keys(headers).some((name) => name.toLowerCase() === 'traceparent')) return;
  const flags = (spanContext.traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED ? '01' : '00';
  headers.traceparent = `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
}
