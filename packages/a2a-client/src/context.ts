import { RUVECTOR_KEYS, type SendMessageRequest, withRuvectorMetadata } from '@a2aplane/a2a-types';

/** The lineage of a call (ADR-159 TaskContext), as the caller holds it. */
export interface CallContext {
  traceId: string;
  parentTaskId?: string;
  depth: number;
  rootAgentId: string;
  visitedAgents: readonly string[];
}

/** The snake_case wire form under `message.metadata.ruvector.context`. */
export function contextToWire(context: CallContext): Record<string, unknown> {
  return {
    trace_id: context.traceId,
    ...(context.parentTaskId === undefined ? {} : { parent_task_id: context.parentTaskId }),
    depth: context.depth,
    root_agent_id: context.rootAgentId,
    visited_agents: [...context.visitedAgents],
  };
}

/** A copy of the request with the context written into its message metadata. */
export function withCallContext(request: SendMessageRequest, context: CallContext): SendMessageRequest {
  return {
    ...request,
    message: {
      ...request.message,
      metadata: withRuvectorMetadata(request.message.metadata, { [RUVECTOR_KEYS.context]: contextToWire(context) }),
    },
  };
}

function randomHex(bytes: number): string {
  const buffer = new Uint8Array(bytes);
  globalThis.crypto.getRandomValues(buffer);
  return Array.from(buffer, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A W3C `traceparent` for the trace, with a fresh span id; `undefined` when the trace id is not 32 hex. */
export function createTraceparent(traceId: string): string | undefined {
  const id = traceId.toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(id) || /^0+$/.test(id)) return undefined;
  let span = randomHex(8);
  while (/^0+$/.test(span)) span = randomHex(8);
  return `00-${id}-${span}-01`;
}
