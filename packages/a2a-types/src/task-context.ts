import { RUVECTOR_KEYS, withRuvectorMetadata } from './ruvector-metadata.js';
import type { Struct } from './model/primitives.js';

// The TaskContext wire codec and W3C `traceparent` handling, without zod: the one implementation
// the client (writing) and a2a-governance (reading, validating with its schema) share.

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

/** Wire shape at `message.metadata.ruvector.context`, with the ADR's snake_case keys. */
export interface TaskContextWire {
  trace_id: string;
  parent_task_id?: string | undefined;
  depth: number;
  root_agent_id: string;
  visited_agents: string[];
}

const HEX_32 = /^[0-9a-f]{32}$/;
const HEX_16 = /^[0-9a-f]{16}$/;
const HEX_2 = /^[0-9a-f]{2}$/;
const ALL_ZERO = /^0+$/;

/** 32 lowercase hex characters, not all zero (W3C Trace Context trace-id). */
export function isTraceId(value: string): boolean {
  return HEX_32.test(value) && !ALL_ZERO.test(value);
}

/** 16 lowercase hex characters, not all zero (W3C Trace Context parent-id). */
export function isSpanId(value: string): boolean {
  return HEX_16.test(value) && !ALL_ZERO.test(value);
}

// getRandomValues costs about a microsecond per call in Node whatever the size, so ids are cut
// from a pooled block of CSPRNG output; every byte is used once.
const POOL_BYTES = 4096;
let pool = new Uint8Array(0);
let poolOffset = 0;
/** Char codes of the lowercase hex digits. */
const HEX_DIGITS = [48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 97, 98, 99, 100, 101, 102];
// The id's char codes, one array per length, made into one flat string by one native call: a
// governed server mints a trace id per root task, and 16 two-character concatenations made a
// rope that the spend aggregator's Map then flattened and hashed (decision 0054).
const codesOf: Record<number, number[]> = {};

function randomHex(bytes: number): string {
  let codes = codesOf[bytes];
  if (codes === undefined) {
    codes = new Array<number>(bytes * 2).fill(0);
    codesOf[bytes] = codes;
  }
  // A zero id is invalid in W3C Trace Context; the chance is 2^-64 or less, but loop anyway.
  for (;;) {
    if (poolOffset + bytes > pool.length) {
      pool = globalThis.crypto.getRandomValues(new Uint8Array(POOL_BYTES));
      poolOffset = 0;
    }
    let any = 0;
    for (let i = 0; i < bytes; i++) {
      const byte = pool[poolOffset + i]!;
      any |= byte;
      codes[2 * i] = HEX_DIGITS[byte >> 4]!;
      codes[2 * i + 1] = HEX_DIGITS[byte & 15]!;
    }
    poolOffset += bytes;
    if (any !== 0) return String.fromCharCode.apply(null, codes);
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

/** The wire form of a context (accepts a read-only `visitedAgents`). */
export function taskContextToWire(
  context: Readonly<Omit<TaskContext, 'visitedAgents'>> & { readonly visitedAgents: readonly string[] },
): TaskContextWire {
  const wire: TaskContextWire = {
    trace_id: context.traceId,
    depth: context.depth,
    root_agent_id: context.rootAgentId,
    visited_agents: [...context.visitedAgents],
  };
  if (context.parentTaskId !== undefined) wire.parent_task_id = context.parentTaskId;
  return wire;
}

/** The context of an already validated wire form. */
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

/** A copy of `metadata` carrying `context` at `ruvector.context`; other keys are kept. */
export function writeTaskContext(metadata: Struct | undefined, context: Parameters<typeof taskContextToWire>[0]): Record<string, unknown> {
  return withRuvectorMetadata(metadata, { [RUVECTOR_KEYS.context]: taskContextToWire(context) });
}

/** A copy of a request whose message metadata carries `context` at `ruvector.context` (what a client sends). */
export function withTaskContext<R extends { readonly message: { readonly metadata?: Struct } }>(
  request: R,
  context: Parameters<typeof taskContextToWire>[0],
): R {
  return { ...request, message: { ...request.message, metadata: writeTaskContext(request.message.metadata, context) } };
}

/** A W3C `traceparent` for `traceId` (either case) with a fresh span id; `undefined` when it is not a valid trace id. */
export function traceparentFor(traceId: string): string | undefined {
  const id = traceId.toLowerCase();
  return isTraceId(id) ? formatTraceparent({ traceId: id }) : undefined;
}

/** The W3C `traceparent` header for a context: `00-<traceId>-<spanId>-01`. A span id is generated when absent. */
export function formatTraceparent(context: { readonly traceId: string }, spanId?: string): string {
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
