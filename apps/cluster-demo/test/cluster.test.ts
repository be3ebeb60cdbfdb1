import { describe, expect, it } from 'vitest';
import { runCluster } from '../src/cluster.js';

// `pnpm demo:cluster` as a test: three replica processes on the local Redis (REDIS_URL), and again
// with tasks and event logs in PostgreSQL (POSTGRES_URL); it fails, saying what it needs, when a
// backend does not answer.

/** The checks every backend passes: the same four scenarios. */
async function checkCluster(backend: 'redis' | 'postgres'): Promise<void> {
  const report = await runCluster({ backend, maxUsdPerMinute: 2, maxCallDepth: 8 });
  expect(report.spread.readOnOtherReplica).toBe(30);
  expect(Object.values(report.spread.servedBy)).toEqual([10, 10, 10]);
  expect(report.resume).toMatchObject({ lost: 0, duplicated: 0 });
  expect(report.resume.beforeKill).toBeGreaterThan(0);
  expect(report.resume.afterResume).toBeGreaterThan(0);
  expect(report.cancel).toMatchObject({ state: 'TASK_STATE_CANCELED', abortedOn: 'replica-2' });

  // The replicas' governors, on one Redis ledger: a depth-limited tree (511 tasks to depth 8) is
  // larger than the $2 cap buys at $0.01 a task, so the ledger admits exactly 200 and spends the cap.
  const { tree } = report;
  expect(tree.spendUsd).toBeLessThanOrEqual(tree.maxUsdPerMinute);
  expect(tree.spendUsd).toBe(2);
  expect(tree.tasks).toBe(200);
  expect(tree.rejected.BUDGET_EXCEEDED).toBeGreaterThan(0);
  // The recursion guard: tasks run down to maxCallDepth, and every delegation one deeper is refused.
  expect(tree.deepest).toBe(8);
  expect(tree.rejected.RECURSION_LIMIT).toBeGreaterThan(0);
  expect(tree.recursionRefusedAt).toEqual([9]);
  expect(Object.keys(tree.rejected).sort()).toEqual(['BUDGET_EXCEEDED', 'RECURSION_LIMIT']);
  expect(Object.keys(tree.byReplica).sort()).toEqual(['replica-1', 'replica-2', 'replica-3']);
  expect(report.passed).toBe(true);
}

describe('cluster demo (needs Redis)', () => {
  it('spreads calls, resumes a stream on another replica after a kill, routes a cancel, and governs one tree on one budget', async () => {
    await checkCluster('redis');
  }, 180_000);

  it('the same with tasks and event logs in PostgreSQL (--backend postgres; budget and slots stay on Redis)', async () => {
    await checkCluster('postgres');
  }, 180_000);
});
