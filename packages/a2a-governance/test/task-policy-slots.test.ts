import { describe, expect, it } from 'vitest';
import { type PolicyAdmission, TaskPolicyEngine, type TaskPolicy } from '../src/index.js';

function admitted(engine: TaskPolicyEngine, caller: string, skill: string): PolicyAdmission {
  const result = engine.admit({ caller, skill });
  if (!result.ok) throw result.error;
  return result.admission;
}

describe('TaskPolicyEngine slot counters', () => {
  it('keeps a held slot through the batch sweeps of idle ones', () => {
    const engine = new TaskPolicyEngine({ default: { maxConcurrency: 1 } });
    const held = admitted(engine, 'holder', 's');
    // Thousands of (caller, skill) pairs come and go: their idle counters are swept in batches.
    for (let i = 0; i < 5000; i++) admitted(engine, `caller-${i}`, `skill-${i % 3}`).release();
    for (let i = 0; i < 5000; i += 997) expect(engine.activeCount(`caller-${i}`, `skill-${i % 3}`)).toBe(0);
    expect(engine.activeCount('holder', 's')).toBe(1);
    const second = engine.admit({ caller: 'holder', skill: 's' });
    expect(second.ok).toBe(false);
    held.release();
    held.release();
    expect(engine.activeCount('holder', 's')).toBe(0);
    const again = admitted(engine, 'holder', 's');
    expect(engine.activeCount('holder', 's')).toBe(1);
    again.release();
  });

  it('counts concurrent admissions of one pair exactly, whatever the release order', () => {
    const engine = new TaskPolicyEngine({ default: { maxConcurrency: 3 } });
    const admissions = [admitted(engine, 'p', 's'), admitted(engine, 'p', 's'), admitted(engine, 'p', 's')];
    expect(engine.admit({ caller: 'p', skill: 's' }).ok).toBe(false);
    admissions[1]!.release();
    expect(engine.activeCount('p', 's')).toBe(2);
    const fourth = admitted(engine, 'p', 's');
    for (const admission of [...admissions, fourth]) admission.release();
    expect(engine.activeCount('p', 's')).toBe(0);
  });

  it('reads policies once, at construction, and hands out copies', () => {
    const perCaller: Record<string, TaskPolicy> = { trusted: { allowedSkills: ['a', 'b'] } };
    const engine = new TaskPolicyEngine({ default: { allowedSkills: ['a'] }, perCaller });
    perCaller.trusted!.allowedSkills!.push('c');
    perCaller.trusted!.maxConcurrency = 0;
    expect(engine.admit({ caller: 'trusted', skill: 'c' }).ok).toBe(false);
    const admission = engine.admit({ caller: 'trusted', skill: 'b' });
    expect(admission.ok).toBe(true);
    if (admission.ok) admission.admission.release();
    const policy = engine.policyFor('trusted');
    policy.allowedSkills!.push('d');
    expect(engine.policyFor('trusted')).toEqual({ allowedSkills: ['a', 'b'], maxConcurrency: 16 });
  });

  it('shares the never-aborting signal when the policy has no mid-task limit', () => {
    const engine = new TaskPolicyEngine({ default: { maxConcurrency: 2 } });
    const first = admitted(engine, 'p', 's');
    const second = admitted(engine, 'p', 's');
    expect(first.signal).toBe(second.signal);
    expect(first.signal.aborted).toBe(false);
    first.meterTokens(10);
    expect(first.tokensUsed).toBe(10);
    first.release();
    second.release();
  });
});
