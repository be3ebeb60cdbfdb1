import { BudgetExceededError, RecursionLimitError } from '@a2aplane/a2a-types';
import { describe, expect, it } from 'vitest';
import {
  type BudgetLedger,
  Governor,
  RecursionPolicy,
  SpendAggregator,
  type TaskContext,
  createInMemoryBudgetLedger,
} from '../src/index.js';

const COST = 0.01;

/** A binary delegation tree, `levels` deep below the root; every agent is distinct, every task costs COST. */
async function delegationTree(budget: BudgetLedger, levels: number) {
  const spend = new SpendAggregator();
  const recursion = new RecursionPolicy({ maxCallDepth: 8 });
  const rejected = { budget: 0, recursion: 0 };
  let rootTrace = '';
  async function run(self: string, caller: string, incoming: TaskContext | undefined, level: number): Promise<void> {
    const governor = new Governor({ selfAgentId: self, budget, recursion, spend, allowUnestimatedUsd: true });
    let task: Awaited<ReturnType<Governor['admit']>>;
    try {
      task = await governor.admit({ caller, skill: 'delegate', incoming, estimatedCostUsd: COST });
    } catch (error) {
      if (BudgetExceededError.isInstance(error)) rejected.budget++;
      else if (RecursionLimitError.isInstance(error)) rejected.recursion++;
      else throw error;
      return;
    }
    if (level === 0) rootTrace = task.context.traceId;
    try {
      if (level < levels) {
        await Promise.all([run(`${self}.0`, self, task.context, level + 1), run(`${self}.1`, self, task.context, level + 1)]);
      }
    } finally {
      await task.finish({ usd: COST, tokens: 1 });
    }
  }
  await run('root', 'user', undefined, 0);
  return { spend, rejected, rootTrace };
}

describe('bounded cost under recursion (ARCHITECTURE acceptance 3, ADR-159 r3)', () => {
  it('a 10-level binary delegation tree never spends more, over its trace id, than maxUsdPerMinute', async () => {
    const budget = createInMemoryBudgetLedger({ maxUsdPerMinute: 1.0 });
    const { spend, rejected, rootTrace } = await delegationTree(budget, 10);
    const total = spend.byTrace(rootTrace);
    expect(total.usd).toBeLessThanOrEqual(1.0);
    expect(total.tasks).toBe(100);
    expect(rejected.budget).toBeGreaterThan(0);
    expect(budget.snapshot()).toMatchObject({ inFlight: 0, reserved: { usd: 0 } });
  });

  it('rejects every task past maxCallDepth at dispatch', async () => {
    const budget = createInMemoryBudgetLedger({ maxUsdPerMinute: 100 });
    const { spend, rejected, rootTrace } = await delegationTree(budget, 10);
    // Depths 0..8 run (2^9 - 1 tasks); the 2^9 attempts at depth 9 are rejected; depth 10 is never reached.
    expect(spend.byTrace(rootTrace).tasks).toBe(511);
    expect(rejected.recursion).toBe(512);
  });
});
