import { type SendMessageRequest, traceparentFor, withTaskContext } from '@a2aplane/a2a-types';

/** The lineage of a call (ADR-159 TaskContext), as the caller holds it. */
export interface CallContext {
  traceId: string;
  parentTaskId?: string;
  depth: number;
  rootAgentId: string;
  visitedAgents: readonly string[];
}

/** A copy of the request with the context written into its message metadata (`ruvector.context`). */
export function withCallContext(request: SendMessageRequest, context: CallContext): SendMessageRequest {
  return withTaskContext(request, context);
}

/** A W3C `traceparent` for the trace, with a fresh span id; `undefined` when the trace id is not 32 hex. */
export function createTraceparent(traceId: string): string | undefined {
  return traceparentFor(traceId);
}

/**
 * Adds a `traceparent` with a fresh span id on the lineage's trace to `headers`, unless the call's
 * own headers carry one (an instrumentation's active span wins).
 */
export function addTraceparent(headers: Record<string, string>, callHeaders: Record<string, string> | undefined, traceId: string): void {
  if (callHeaders !== undefined && Object.keys(callHeaders).some((name) => name.toLowerCase() === 'traceparent')) return;
  const traceparent = traceparentFor(traceId);
  if (traceparent) headers.traceparent = traceparent;
}
