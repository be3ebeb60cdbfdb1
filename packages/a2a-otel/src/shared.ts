import { A2AError, isA2AMethod, parseTraceparent } from '@a2aplane/a2a-types';
import { type Attributes, type Context, isSpanContextValid, propagation, TraceFlags, trace } from '@opentelemetry/api';
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
