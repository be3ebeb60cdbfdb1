import { PolicyViolationError } from '@a2aplane/a2a-types';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_MAX_CONCURRENCY, type PolicyAdmission, TaskPolicyEngine } from '../src/index.js';

/** Runs the task only when policy admits it: the spy proves no runner work started on rejection. */
function dispatch(engine: TaskPolicyEngine, runner: () => void, input: { caller: string; skill: string; estimatedCostUsd?: number }) {
  const result = engine.admit(input);
  if (result.ok) runner();
  return result;
}

describe('TaskPolicy (ADR-159 M1 test 4 policy_guard)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('rejects a skill outside allowedSkills before any runner work', () => {
    const runner = vi.fn();
    const engine = new TaskPolicyEngine({ default: { allowedSkills: ['rag.query'] } });
    const result = dispatch(engine, runner, { caller: 'peer', skill: 'shell.exec' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(PolicyViolationError.isInstance(result.error)).toBe(true);
    expect(result.error.metadata).toMatchObject({ field: 'allowedSkills', caller: 'peer', skill: 'shell.exec' });
    expect(runner).not.toHaveBeenCalled();
  });

  it('rejects past maxConcurrency per (caller, skill) before any runner work', () => {
    const runner = vi.fn();
    const engine = new TaskPolicyEngine({ default: { maxConcurrency: 1 } });
    expect(dispatch(engine, runner, { caller: 'peer', skill: 's' }).ok).toBe(true);
    expect(runner).toHaveBeenCalledTimes(1);
    const second = dispatch(engine, runner, { caller: 'peer', skill: 's' });
    expect(second.ok).toBe(false);
    if (!second.ok) expect(second.error.metadata).toMatchObject({ field: 'maxConcurrency', limit: '1' });
    expect(runner).toHaveBeenCalledTimes(1);
    // Other buckets are independent.
    expect(engine.admit({ caller: 'peer', skill: 'other' }).ok).toBe(true);
    expect(engine.admit({ caller: 'someone-else', skill: 's' }).ok).toBe(true);
  });

  it('rejects an estimate above maxCostUsd before any runner work and gives the slot back', () => {
    const runner = vi.fn();
    const engine = new TaskPolicyEngine({ default: { maxCostUsd: 0.05, maxConcurrency: 1 } });
    const result = dispatch(engine, runner, { caller: 'peer', skill: 's', estimatedCostUsd: 0.06 });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.metadata).toMatchObject({ field: 'maxCostUsd', limit: '0.05', actual: '0.06' });
    expect(runner).not.toHaveBeenCalled();
    expect(engine.activeCount('peer', 's')).toBe(0);
    expect(dispatch(engine, runner, { caller: 'peer', skill: 's', estimatedCostUsd: 0.05 }).ok).toBe(true);
  });

  it('uses estimateCost when no estimate is given', () => {
    const engine = new TaskPolicyEngine({ default: { maxCostUsd: 0.05 }, estimateCost: ({ skill }) => (skill === 'big' ? 1 : 0.01) });
    expect(engine.admit({ caller: 'p', skill: 'big' }).ok).toBe(false);
    expect(engine.admit({ caller: 'p', skill: 'small' }).ok).toBe(true);
  });

  it('scopes policy per caller, merged over the default', () => {
    const engine = new TaskPolicyEngine({
      default: { allowedSkills: ['a'], maxCostUsd: 0.05 },
      perCaller: { trusted: { allowedSkills: ['a', 'b'] } },
    });
    expect(engine.policyFor('trusted')).toEqual({ allowedSkills: ['a', 'b'], maxCostUsd: 0.05, maxConcurrency: 16 });
    expect(engine.admit({ caller: 'trusted', skill: 'b' }).ok).toBe(true);
    expect(engine.admit({ caller: 'stranger', skill: 'b' }).ok).toBe(false);
    expect(engine.policyFor('__proto__')).toEqual({ allowedSkills: ['a'], maxCostUsd: 0.05, maxConcurrency: 16 });
  });

  it('caps concurrency at 16 per (caller, skill) when no policy sets it (ADR-159 mitigation 1); Infinity lifts it', () => {
    const engine = new TaskPolicyEngine();
    const held = Array.from({ length: DEFAULT_MAX_CONCURRENCY }, () => engine.admit({ caller: 'p', skill: 's' }));
    expect(held.every((result) => result.ok)).toBe(true);
    const refused = engine.admit({ caller: 'p', skill: 's' });
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error.metadata).toMatchObject({ field: 'maxConcurrency', limit: '16' });
    expect(engine.admit({ caller: 'p', skill: 'other' }).ok).toBe(true);
    expect(engine.admit({ caller: 'q', skill: 's' }).ok).toBe(true);
    const unlimited = new TaskPolicyEngine({ default: { maxConcurrency: Number.POSITIVE_INFINITY } });
    for (let i = 0; i < 100; i++) expect(unlimited.admit({ caller: 'p', skill: 's' }).ok).toBe(true);
  });

  it('aborts the signal past maxTokens with the policy reason', () => {
    const engine = new TaskPolicyEngine({ default: { maxTokens: 100 } });
    const result = engine.admit({ caller: 'p', skill: 's' });
    if (!result.ok) throw result.error;
    const { admission } = result;
    admission.meterTokens(60);
    admission.meterTokens(40);
    expect(admission.signal.aborted).toBe(false);
    admission.meterTokens(1);
    expect(admission.tokensUsed).toBe(101);
    expect(admission.signal.aborted).toBe(true);
    expect(PolicyViolationError.isInstance(admission.signal.reason)).toBe(true);
    expect((admission.signal.reason as PolicyViolationError).metadata).toMatchObject({ field: 'maxTokens', limit: '100', actual: '101' });
    expect(() => admission.meterTokens(-1)).toThrow(RangeError);
    admission.release();
  });

  it('aborts the signal past maxDurationMs with the policy reason (fake timers)', () => {
    const engine = new TaskPolicyEngine({ default: { maxDurationMs: 1000 } });
    const result = engine.admit({ caller: 'p', skill: 's' });
    if (!result.ok) throw result.error;
    vi.advanceTimersByTime(999);
    expect(result.admission.signal.aborted).toBe(false);
    expect(result.admission.elapsedMs).toBe(999);
    vi.advanceTimersByTime(1);
    expect(result.admission.signal.aborted).toBe(true);
    expect((result.admission.signal.reason as PolicyViolationError).metadata.field).toBe('maxDurationMs');
    result.admission.release();
  });

  it('release clears the duration timer', () => {
    const engine = new TaskPolicyEngine({ default: { maxDurationMs: 1000 } });
    const result = engine.admit({ caller: 'p', skill: 's' });
    if (!result.ok) throw result.error;
    result.admission.release();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(5000);
    expect(result.admission.signal.aborted).toBe(false);
  });

  describe('slots are released on every exit path (no leak with maxConcurrency 1)', () => {
    async function runTask(engine: TaskPolicyEngine, body: (admission: PolicyAdmission) => Promise<void>): Promise<void> {
      const result = engine.admit({ caller: 'p', skill: 's' });
      if (!result.ok) throw result.error;
      try {
        await body(result.admission);
      } finally {
        result.admission.release();
        result.admission.release(); // idempotent
      }
    }
    const exits: Array<[string, (admission: PolicyAdmission) => Promise<void>]> = [
      ['success', async () => {}],
      ['failure', async () => Promise.reject(new Error('runner failed'))],
      [
        'cancel',
        async () => {
          const controller = new AbortController();
          controller.abort();
          throw controller.signal.reason;
        },
      ],
      [
        'policy abort',
        async (admission) => {
          admission.meterTokens(1_000_000);
          throw admission.signal.reason;
        },
      ],
      [
        'thrown error',
        () => {
          throw new TypeError('bug in runner');
        },
      ],
    ];
    it.each(exits)('%s', async (_name, body) => {
      const engine = new TaskPolicyEngine({ default: { maxConcurrency: 1, maxTokens: 10 } });
      await runTask(engine, body).catch(() => {});
      expect(engine.activeCount('p', 's')).toBe(0);
      const second = engine.admit({ caller: 'p', skill: 's' });
      expect(second.ok).toBe(true);
      if (second.ok) second.admission.release();
      expect(engine.activeCount('p', 's')).toBe(0);
    });
  });

  it('rejects invalid policy numbers', () => {
    expect(() => new TaskPolicyEngine({ default: { maxTokens: -1 } })).toThrow(RangeError);
    expect(() => new TaskPolicyEngine({ perCaller: { p: { maxConcurrency: Number.NaN } } })).toThrow(RangeError);
  });
});
