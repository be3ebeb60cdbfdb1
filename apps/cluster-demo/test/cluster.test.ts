import { describe, expect, it } from 'vitest';
import { runCluster } from '../src/cluster.js';

// `pnpm demo:cluster` as a test: three replica processes on the local Redis (REDIS_URL); it
// fails, saying it needs Redis, when none answers.
describe('cluster demo (needs Redis)', () => {
  it('spreads calls, resumes a stream on another replica after a kill, routes a cancel, and keeps one budget', async () => {
    const report = await runCluster();
    expect(report.spread.readOnOtherReplica).toBe(30);
    expect(Object.values(report.spread.servedBy)).toEqual([10, 10, 10]);
    expect(report.resume).toMatchObject({ lost: 0, duplicated: 0 });
    expect(report.resume.beforeKill).toBeGreaterThan(0);
    expect(report.resume.afterResume).toBeGreaterThan(0);
    expect(report.cancel).toMatchObject({ state: 'TASK_STATE_CANCELED', abortedOn: 'replica-2' });
    expect(report.tree.spendUsd).toBeLessThanOrEqual(report.tree.maxUsdPerMinute);
    expect(report.tree.rejected.BUDGET_EXCEEDED).toBeGreaterThan(0);
    expect(Object.keys(report.tree.byReplica).sort()).toEqual(['replica-1', 'replica-2', 'replica-3']);
    expect(report.passed).toBe(true);
  }, 180_000);
});
