import {
  InvalidParamsError,
  RUVECTOR_KEYS,
  RUVECTOR_NAMESPACE,
  type TaskContext,
  type TaskContextWire,
  createValidationFailure,
  formatFieldPath,
  generateTraceId,
  isTraceId,
  taskContextFromWire,
} from '@a2aplane/a2a-types';
import * as z from 'zod';

// The codec and traceparent helpers live once, in a2a-types (the client writes with them too);
// this module adds what governance needs: root/child contexts and validated reading.
export {
  type TaskContext,
  type TaskContextWire,
  formatTraceparent,
  generateSpanId,
  generateTraceId,
  parseTraceparent,
  taskContextFromWire,
  taskContextToWire,
  writeTaskContext,
} from '@a2aplane/a2a-types';

/** Field prefix of the wire context in violations, as a server reports it. */
export const TASK_CONTEXT_FIELD = `message.metadata.${RUVECTOR_NAMESPACE}.${RUVECTOR_KEYS.context}`;

/** Upper bound on `visited_agents` accepted from the wire, so a peer cannot make us copy huge arrays. */
export const MAX_VISITED_AGENTS = 1024;

function requireString(name: string, value: unknown): asserts value is string {
  if (typeof value !== 'string' || value === '') {
    throw new TypeError(`expected ${name} to be a non-empty string, got ${value === '' ? 'an empty string' : typeof value}`);
  }
}

/** The context of a root task: depth 0, a fresh trace id unless one is given, visited = [root]. */
export function createRootContext(options: { rootAgentId: string; traceId?: string }): TaskContext {
  requireString('rootAgentId', options?.rootAgentId);
  let traceId = options.traceId;
  if (traceId === undefined) traceId = generateTraceId();
  else if (typeof traceId !== 'string' || !isTraceId(traceId)) {
    throw new TypeError(`expected traceId to be 32 lowercase hex characters, not all zero, got ${JSON.stringify(traceId)}`);
  }
  return { traceId, depth: 0, rootAgentId: options.rootAgentId, visitedAgents: [options.rootAgentId] };
}

/**
 * The context a delegated task runs under: same trace and root, `depth + 1`, the receiving agent
 * appended to `visitedAgents`. `parentTaskId` is the delegating task's id.
 */
export function childContext(parent: TaskContext, options: { parentTaskId?: string; receivingAgentId: string }): TaskContext {
  requireString('receivingAgentId', options?.receivingAgentId);
  const child: TaskContext = {
    traceId: parent.traceId,
    depth: parent.depth + 1,
    rootAgentId: parent.rootAgentId,
    visitedAgents: [...parent.visitedAgents, options.receivingAgentId],
  };
  if (options.parentTaskId !== undefined) child.parentTaskId = options.parentTaskId;
  return child;
}

/** Wire shape at `message.metadata.ruvector.context`, with the ADR's snake_case keys. */
export const TaskContextWireSchema: z.ZodType<TaskContextWire> = z.object({
  trace_id: z.string().refine(isTraceId, 'expected 32 lowercase hex characters, not all zero'),
  parent_task_id: z.string().min(1).optional(),
  depth: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  root_agent_id: z.string().min(1),
  visited_agents: z.array(z.string().min(1)).max(MAX_VISITED_AGENTS),
});
function invalid(field: string, description: string): { ok: false; error: InvalidParamsError } {
  return invalidMany([{ field, description }]);
}

function invalidMany(violations: { field: string; description: string }[]): { ok: false; error: InvalidParamsError } {
  const failure = createValidationFailure(violations);
  return {
    ok: false,
    error: new InvalidParamsError({ message: `invalid task context: ${failure.message}`, details: [{ ...failure.toBadRequest() }] }),
  };
}

/**
 * The answer for a message without a context, shared: a server reads the context of every
 * SendMessage, and most carry none (every root task).
 */
const NO_CONTEXT: { readonly ok: true; readonly context: undefined } = Object.freeze({ ok: true, context: undefined });

/**
 * Reads the sender's TaskContext from a message's metadata. Never throws: an absent context gives
 * `context: undefined` (one shared, frozen answer), a malformed one an `InvalidParamsError` whose
 * BadRequest violations name fields under `message.metadata.ruvector.context`.
 */
export function readTaskContext(
  metadata: Record<string, unknown> | undefined,
): { readonly ok: true; readonly context: TaskContext | undefined } | { ok: false; error: InvalidParamsError } {
  if (metadata === undefined || metadata === null) return NO_CONTEXT;
  if (typeof metadata !== 'object' || Array.isArray(metadata)) return invalid('message.metadata', 'expected an object');
  const namespace = metadata[RUVECTOR_NAMESPACE];
  if (namespace === undefined) return NO_CONTEXT;
  if (typeof namespace !== 'object' || namespace === null || Array.isArray(namespace)) {
    return invalid(`message.metadata.${RUVECTOR_NAMESPACE}`, 'expected an object');
  }
  const raw = (namespace as Record<string, unknown>)[RUVECTOR_KEYS.context];
  if (raw === undefined) return NO_CONTEXT;
  const parsed = TaskContextWireSchema.safeParse(raw);
  if (!parsed.success) {
    return invalidMany(
      parsed.error.issues.map((issue) => ({ field: formatFieldPath(issue.path, TASK_CONTEXT_FIELD), description: issue.message })),
    );
  }
  return { ok: true, context: taskContextFromWire(parsed.data) };
}
