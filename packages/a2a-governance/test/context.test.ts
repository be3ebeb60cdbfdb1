import { InvalidParamsError } from '@a2aplane/a2a-types';
import { describe, expect, it } from 'vitest';
import {
  TaskContextWireSchema,
  childContext,
  createRootContext,
  formatTraceparent,
  parseTraceparent,
  readTaskContext,
  writeTaskContext,
} from '../src/index.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('TaskContext (ADR-159 r3 trace-level causality, M1 test 6 trace_lineage)', () => {
  it('creates a root context with a fresh W3C trace id', () => {
    const root = createRootContext({ rootAgentId: 'A' });
    expect(root.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(root).toMatchObject({ depth: 0, rootAgentId: 'A', visitedAgents: ['A'] });
    expect(root.parentTaskId).toBeUndefined();
    expect(createRootContext({ rootAgentId: 'A' }).traceId).not.toBe(root.traceId);
  });

  it('keeps a given trace id and rejects a malformed one', () => {
    expect(createRootContext({ rootAgentId: 'A', traceId: TRACE }).traceId).toBe(TRACE);
    expect(() => createRootContext({ rootAgentId: 'A', traceId: 'XYZ' })).toThrow(TypeError);
    expect(() => createRootContext({ rootAgentId: 'A', traceId: '0'.repeat(32) })).toThrow(TypeError);
    expect(() => createRootContext({ rootAgentId: '' })).toThrow(TypeError);
  });

  it('propagates lineage over three hops: trace kept, depth, parents, visited', () => {
    const root = createRootContext({ rootAgentId: 'A', traceId: TRACE });
    const b = childContext(root, { parentTaskId: 'task-a', receivingAgentId: 'B' });
    const c = childContext(b, { parentTaskId: 'task-b', receivingAgentId: 'C' });
    const d = childContext(c, { parentTaskId: 'task-c', receivingAgentId: 'D' });
    expect([b, c, d].map((ctx) => ctx.traceId)).toEqual([TRACE, TRACE, TRACE]);
    expect([b, c, d].map((ctx) => ctx.depth)).toEqual([1, 2, 3]);
    expect([b, c, d].map((ctx) => ctx.parentTaskId)).toEqual(['task-a', 'task-b', 'task-c']);
    expect(d.visitedAgents).toEqual(['A', 'B', 'C', 'D']);
    expect(d.rootAgentId).toBe('A');
    expect(root.visitedAgents).toEqual(['A']);
  });

  it('round-trips through message.metadata.ruvector.context with snake_case keys, keeping other keys', () => {
    const ctx = childContext(createRootContext({ rootAgentId: 'A', traceId: TRACE }), { parentTaskId: 't1', receivingAgentId: 'B' });
    const metadata = writeTaskContext({ other: 1, ruvector: { artifact_kind: 'text' } }, ctx);
    expect(metadata).toEqual({
      other: 1,
      ruvector: {
        artifact_kind: 'text',
        context: { trace_id: TRACE, parent_task_id: 't1', depth: 1, root_agent_id: 'A', visited_agents: ['A', 'B'] },
      },
    });
    expect(TaskContextWireSchema.safeParse((metadata.ruvector as Record<string, unknown>).context).success).toBe(true);
    expect(readTaskContext(metadata)).toEqual({ ok: true, context: ctx });
  });

  it('treats an absent context as undefined', () => {
    expect(readTaskContext(undefined)).toEqual({ ok: true, context: undefined });
    expect(readTaskContext({})).toEqual({ ok: true, context: undefined });
    expect(readTaskContext({ ruvector: {} })).toEqual({ ok: true, context: undefined });
  });

  it('answers every absent context with one frozen result, so no caller can change what the next one reads', () => {
    const absent = readTaskContext(undefined);
    expect(Object.isFrozen(absent)).toBe(true);
    expect(readTaskContext({ other: 1 })).toBe(absent);
    expect(readTaskContext({ ruvector: { unrelated: true } })).toBe(absent);
    expect(() => {
      (absent as { context: unknown }).context = { traceId: 'x' };
    }).toThrow(TypeError);
    expect(readTaskContext(undefined)).toEqual({ ok: true, context: undefined });
  });

  it('reports a malformed context as InvalidParamsError with BadRequest field violations', () => {
    const result = readTaskContext({ ruvector: { context: { trace_id: 'nope', depth: -1, visited_agents: 'A' } } });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(InvalidParamsError.isInstance(result.error)).toBe(true);
    const fields = result.error.fieldViolations.map((v) => v.field).sort();
    expect(fields).toEqual([
      'message.metadata.ruvector.context.depth',
      'message.metadata.ruvector.context.root_agent_id',
      'message.metadata.ruvector.context.trace_id',
      'message.metadata.ruvector.context.visited_agents',
    ]);
    const notObject = readTaskContext({ ruvector: 'x' });
    expect(notObject.ok).toBe(false);
    if (!notObject.ok) expect(notObject.error.fieldViolations[0]?.field).toBe('message.metadata.ruvector');
  });
});

describe('traceparent (W3C Trace Context §3.2)', () => {
  it('formats version 00 with sampled flag', () => {
    const ctx = createRootContext({ rootAgentId: 'A', traceId: TRACE });
    expect(formatTraceparent(ctx, SPAN)).toBe(`00-${TRACE}-${SPAN}-01`);
    const generated = formatTraceparent(ctx);
    expect(generated).toMatch(new RegExp(`^00-${TRACE}-[0-9a-f]{16}-01$`));
    expect(parseTraceparent(generated)?.traceId).toBe(TRACE);
    expect(() => formatTraceparent(ctx, 'short')).toThrow(RangeError);
  });

  it.each([
    [`00-${TRACE}-${SPAN}-01`, { traceId: TRACE, parentId: SPAN, flags: '01' }],
    [`00-${TRACE}-${SPAN}-00`, { traceId: TRACE, parentId: SPAN, flags: '00' }],
    [`cc-${TRACE}-${SPAN}-01-what-the-future-holds`, { traceId: TRACE, parentId: SPAN, flags: '01' }],
    [`cc-${TRACE}-${SPAN}-01`, { traceId: TRACE, parentId: SPAN, flags: '01' }],
    [`ff-${TRACE}-${SPAN}-01`, undefined],
    [`0g-${TRACE}-${SPAN}-01`, undefined],
    [`00-${'0'.repeat(32)}-${SPAN}-01`, undefined],
    [`00-${TRACE}-${'0'.repeat(16)}-01`, undefined],
    [`00-${TRACE.slice(1)}-${SPAN}-01`, undefined],
    [`00-${TRACE}-${SPAN}0-01`, undefined],
    [`00-${TRACE}-${SPAN}-01-extra`, undefined],
    [`00-${TRACE.toUpperCase()}-${SPAN}-01`, undefined],
    [`00-${TRACE}-${SPAN}-0x`, undefined],
    [`cc-${TRACE}-${SPAN}-01x`, undefined],
    ['', undefined],
  ])('parses %j', (header, expected) => {
    expect(parseTraceparent(header)).toEqual(expected);
  });
});
