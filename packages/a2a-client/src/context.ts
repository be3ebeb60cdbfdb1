import { traceparentFor, withTaskContext } from '@a2aplane/a2a-types/client-extras';
import type { SendMessageRequest } from '@a2aplane/a2a-types';

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
