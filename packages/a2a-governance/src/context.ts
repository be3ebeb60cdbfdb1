import {
  InvalidParamsError,
  RUVECTOR_KEYS,
  RUVECTOR_NAMESPACE,
  createValidationFailure,
  formatFieldPath,
  withRuvectorMetadata,
} from '@a2aplane/a2a-types';
import * as z from 'zod';

/**
 * Lineage of one task in a multi-agent call graph (ADR-159 r3 "Trace-level causality").
 * `depth` 0 is the root task; `visitedAgents` lists every agent the chain has transited, in
 * order, ending with the agent the task runs on.
 */
export interface TaskContext {
  /** W3C-compatible trace id: 32 lowercase hex characters, not all zero. Kept by every descendant. */
  traceId: string;
  /** Id of the task that delegated this one; absent on the root task. */
  parentTaskId?: string;
  depth: number;
  /** Agent that started the root task; spend is attributed to it. */
  rootAgentId: string;
  visitedAgents: string[];
}

/** Field prefix of the wire context in violations, as a server reports it. */
export const TASK_CONTEXT_FIELD = `message.metadata.${RUVECTOR_NAMESPACE}.${RUVECTOR_KEYS.context}`;

/** Upper bound on `visited_agents` accepted from the wire, so a peer cannot make us copy huge arrays. */
export const MAX_VISITED_AGENTS = 1024;

const HEX_32 = /^[0-9a-f]{32}$/;
const HEX_16 = /^[0-9a-f]{16}$/;
const HEX_2 = /^[0-9a-f]{2}$/;
const ALL_ZERO = /^0+$/;

function isTraceId(value: string): boolean {
  return HEX_32.test(value) && !ALL_ZERO.test(value);
}

function isSpanId(value: string): boolean {
  return HEX_16.test(value) && !ALL_ZERO.test(value);
}

// getRandomValues costs about a microsecond per call in Node whatever the size, so ids are cut
// from a pooled block of CSPRNG output; every byte is used once.
const POOL_BYTES = 4096;
let pool = new Uint8Array(0);
let poolOffset = 0;
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

function randomHex(bytes: number): string {
  // A zero id is invalid in W3C Trace Context; the chance is 2^-64 or less, but loop anyway.
  for (;;) {
    if (poolOffset + bytes > pool.length) {
      pool = crypto.getRandomValues(new Uint8Array(POOL_BYTES));
      poolOffset = 0;
    }
    let out = '';
    for (let i = 0; i < bytes; i++) out += HEX[pool[poolOffset + i]!];
    poolOffset += bytes;
    if (!ALL_ZERO.test(out)) return out;
  }
}

/** A fresh W3C trace id (16 random bytes, lowercase hex). */
export function generateTraceId(): string {
  return randomHex(16);
}

/** A fresh W3C span (parent) id (8 random bytes, lowercase hex). */
export function generateSpanId(): string {
  return randomHex(8);
}

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
export const TaskContextWireSchema = z.object({
  trace_id: z.string().refine(isTraceId, 'expected 32 lowercase hex characters, not all zero'),
  parent_task_id: z.string().min(1).optional(),
  depth: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  root_agent_id: z.string().min(1),
  visited_agents: z.array(z.string().min(1)).max(MAX_VISITED_AGENTS),
});
export type TaskContextWire = z.infer<typeof TaskContextWireSchema>;

export function taskContextToWire(context: TaskContext): TaskContextWire {
  const wire: TaskContextWire = {
    trace_id: context.traceId,
    depth: context.depth,
    root_agent_id: context.rootAgentId,
    visited_agents: [...context.visitedAgents],
  };
  if (context.parentTaskId !== undefined) wire.parent_task_id = context.parentTaskId;
  return wire;
}

export function taskContextFromWire(wire: TaskContextWire): TaskContext {
  const context: TaskContext = {
    traceId: wire.trace_id,
    depth: wire.depth,
    rootAgentId: wire.root_agent_id,
    visitedAgents: [...wire.visited_agents],
  };
  if (wire.parent_task_id !== undefined) context.parentTaskId = wire.parent_task_id;
  return context;
}

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
 * Reads the sender's TaskContext from a message's metadata. Never throws: an absent context gives
 * `context: undefined`, a malformed one an `InvalidParamsError` whose BadRequest violations name
 * fields under `message.metadata.ruvector.context`.
 */
export function readTaskContext(
  metadata: Record<string, unknown> | undefined,
): { ok: true; context: TaskContext | undefined } | { ok: false; error: InvalidParamsError } {
  if (metadata === undefined || metadata === null) return { ok: true, context: undefined };
  if (typeof metadata !== 'object' || Array.isArray(metadata)) return invalid('message.metadata', 'expected an object');
  const namespace = metadata[RUVECTOR_NAMESPACE];
  if (namespace === undefined) return { ok: true, context: undefined };
  if (typeof namespace !== 'object' || namespace === null || Array.isArray(namespace)) {
    return invalid(`message.metadata.${RUVECTOR_NAMESPACE}`, 'expected an object');
  }
  const raw = (namespace as Record<string, unknown>)[RUVECTOR_KEYS.context];
  if (raw === undefined) return { ok: true, context: undefined };
  const parsed = TaskContextWireSchema.safeParse(raw);
  if (!parsed.success) {
    return invalidMany(
      parsed.error.issues.map((issue) => ({ field: formatFieldPath(issue.path, TASK_CONTEXT_FIELD), description: issue.message })),
    );
  }
  return { ok: true, context: taskContextFromWire(parsed.data) };
}

/** A copy of `metadata` carrying `context` at `ruvector.context`; other keys are kept. */
export function writeTaskContext(metadata: Record<string, unknown> | undefined, context: TaskContext): Record<string, unknown> {
  return withRuvectorMetadata(metadata, { [RUVECTOR_KEYS.context]: taskContextToWire(context) });
}

/** The W3C `traceparent` header for a context: `00-<traceId>-<spanId>-01`. A span id is generated when absent. */
export function formatTraceparent(context: TaskContext, spanId?: string): string {
  if (!isTraceId(context.traceId)) {
    throw new RangeError(`expected traceId to be 32 lowercase hex characters, not all zero, got ${JSON.stringify(context.traceId)}`);
  }
  const span = spanId ?? generateSpanId();
  if (!isSpanId(span)) throw new RangeError(`expected spanId to be 16 lowercase hex characters, not all zero, got ${JSON.stringify(span)}`);
  return `00-${context.traceId}-${span}-01`;
}

/**
 * Parses a W3C `traceparent` header (Trace Context Level 1 §3.2). Returns `undefined` for an
 * invalid header: version `ff` or not two lowercase hex digits, all-zero ids, wrong lengths, and
 * for version 00 any trailing data. Later versions may carry more fields after a `-`.
 */
export function parseTraceparent(header: string): { traceId: string; parentId: string; flags: string } | undefined {
  if (typeof header !== 'string') return undefined;
  const value = header.trim();
  if (value.length < 55) return undefined;
  const version = value.slice(0, 2);
  if (!HEX_2.test(version) || version === 'ff') return undefined;
  if (version === '00' && value.length !== 55) return undefined;
  if (value.length > 55 && value[55] !== '-') return undefined;
  if (value[2] !== '-' || value[35] !== '-' || value[52] !== '-') return undefined;
  const traceId = value.slice(3, 35);
  const parentId = value.slice(36, 52);
  const flags = value.slice(53, 55);
  if (!isTraceId(traceId) || !isSpanId(parentId) || !HEX_2.test(flags)) return undefined;
  return { traceId, parentId, flags };
}
