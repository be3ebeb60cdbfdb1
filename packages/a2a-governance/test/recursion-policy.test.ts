import { RecursionLimitError } from '@a2aplane/a2a-types';
import { describe, expect, it } from 'vitest';
import { RecursionPolicy, type TaskContext, childContext, createRootContext } from '../src/index.js';

function chain(agents: string[]): TaskContext {
  let ctx = createRootContext({ rootAgentId: agents[0]! });
  agents.slice(1).forEach((agent, i) => {
    ctx = childContext(ctx, { parentTaskId: `t${i}`, receivingAgentId: agent });
  });
  return ctx;
}

describe('RecursionPolicy (ADR-159 M3 test 5 recursion_guard)', () => {
  it('with maxCallDepth 8 dispatches a child at depth 8 and rejects depth 9', () => {
    const policy = new RecursionPolicy({ maxCallDepth: 8 });
    const atDepth7 = chain(['a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7']);
    expect(atDepth7.depth).toBe(7);
    expect(policy.check(atDepth7, 'a8')).toEqual({ allowed: true });
    const atDepth8 = childContext(atDepth7, { parentTaskId: 't7', receivingAgentId: 'a8' });
    const verdict = policy.check(atDepth8, 'a9');
    expect(verdict.allowed).toBe(false);
    if (verdict.allowed) return;
    expect(RecursionLimitError.isInstance(verdict.error)).toBe(true);
    expect(verdict.error.metadata).toMatchObject({ limit: 'depth', depth: '9', maxCallDepth: '8' });
    expect(verdict.error.metadata.path).toBe('a0 -> a1 -> a2 -> a3 -> a4 -> a5 -> a6 -> a7 -> a8 -> a9');
    expect(verdict.path).toHaveLength(10);
  });

  it('defaults to maxCallDepth 8 and denyRevisit true', () => {
    const policy = new RecursionPolicy();
    expect(policy.maxCallDepth).toBe(8);
    expect(policy.denyRevisit).toBe(true);
  });

  it('rejects a revisit: visited [A, B, C] targeting A, i.e. A -> B -> C -> A', () => {
    const verdict = new RecursionPolicy().check(chain(['A', 'B', 'C']), 'A');
    expect(verdict.allowed).toBe(false);
    if (verdict.allowed) return;
    expect(verdict.path).toEqual(['A', 'B', 'C', 'A']);
    expect(verdict.error.metadata).toMatchObject({ limit: 'revisit', path: 'A -> B -> C -> A', agentId: 'A' });
    expect(verdict.error.reason).toBe('RECURSION_LIMIT');
  });

  it('dispatches an allowlisted revisit, and any revisit with denyRevisit false', () => {
    expect(new RecursionPolicy({ revisitAllowlist: ['A'] }).check(chain(['A', 'B', 'C']), 'A').allowed).toBe(true);
    expect(new RecursionPolicy({ revisitAllowlist: ['B'] }).check(chain(['A', 'B', 'C']), 'A').allowed).toBe(false);
    expect(new RecursionPolicy({ denyRevisit: false }).check(chain(['A', 'B']), 'A').allowed).toBe(true);
  });

  it('rejects a bad maxCallDepth', () => {
    expect(() => new RecursionPolicy({ maxCallDepth: -1 })).toThrow(RangeError);
    expect(() => new RecursionPolicy({ maxCallDepth: 1.5 })).toThrow(RangeError);
  });
});
