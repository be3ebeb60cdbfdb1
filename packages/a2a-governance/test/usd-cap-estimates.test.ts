import { BudgetExceededError } from '@a2aplane/a2a-types';
import { describe, expect, it } from 'vitest';
import { type BudgetLedger, createGovernor, createInMemoryBudgetLedger, type GovernedTask, GovernorOptionsError } from '../src/index.js';

/** 40 tasks admitted at once, each costing $0.01, finished only after all were admitted. */
async function fortyConcurrent(admit: () => Promise<GovernedTask>): Promise<{ admitted: number; refused: number }> {
  const outcomes = await Promise.allSettled(Array.from({ length: 40 }, admit));
  const tasks = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  for (const outcome of outcomes) {
    if (outcome.status === 'rejected') expect(BudgetExceededError.isInstance(outcome.reason)).toBe(true);
  }
  await Promise.all(tasks.map((task) => task.finish({ usd: 0.01 })));
  return { admitted: tasks.length, refused: outcomes.length - tasks.length };
}

describe('a USD cap needs cost estimates (docs/governance.md "Cost")', () => {
  it('refuses a USD-capped ledger without estimateCost at start, with a GovernorOptionsError naming the fix', () => {
    const budget = createInMemoryBudgetLedger({ maxUsdPerMinute: 0.1 });
    let error: unknown;
    try {
      createGovernor({ selfAgentId: 'self', budget });
    } catch (caught) {
      error = caught;
    }
    expect(GovernorOptionsError.isInstance(error)).toBe(true);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as GovernorOptionsError).field).toBe('estimateCost');
    expect((error as Error).message).toMatch(/estimateCost/);
    expect((error as Error).message).toMatch(/allowUnestimatedUsd/);
  });

  it('asks a shared ledger for its caps the same way (its snapshot limits)', () => {
    const inner = createInMemoryBudgetLedger({ maxUsdPerMinute: 0.1 });
    const shared: BudgetLedger = {
      acquire: (r, s) => inner.acquire(r, s),
      meter: (t, a) => inner.meter(t, a),
      snapshot: () => inner.snapshot(),
    };
    expect(() => createGovernor({ selfAgentId: 'self', budget: shared })).toThrow(/estimateCost/);
  });

  it('accepts a ledger without a USD cap, an estimator, or the explicit allowUnestimatedUsd', () => {
    expect(() =>
      createGovernor({ selfAgentId: 'self', budget: createInMemoryBudgetLedger({ maxTokensPerMinute: 10, maxTasksPerMinute: 5 }) }),
    ).not.toThrow();
    const budget = createInMemoryBudgetLedger({ maxUsdPerMinute: 0.1 });
    expect(() => createGovernor({ selfAgentId: 'self', budget, estimateCost: () => 0.01 })).not.toThrow();
    expect(() => createGovernor({ selfAgentId: 'self', budget, allowUnestimatedUsd: true })).not.toThrow();
    expect(() => createGovernor({ selfAgentId: 'self', budget, allowUnestimatedUsd: 'yes' as unknown as boolean })).toThrow(TypeError);
  });

  it('with an estimator, 40 concurrent $0.01 tasks against a $0.10 cap: 10 run and $0.10 is metered, never more', async () => {
    const budget = createInMemoryBudgetLedger({ maxUsdPerMinute: 0.1 });
    const governor = createGovernor({ selfAgentId: 'self', budget, estimateCost: () => 0.01 });
    const { admitted, refused } = await fortyConcurrent(() => governor.admit({ caller: 'c', skill: 's' }));
    expect({ admitted, refused }).toEqual({ admitted: 10, refused: 30 });
    expect(budget.snapshot().totals.usd).toBeCloseTo(0.1, 9);
  });

  it('allowUnestimatedUsd is the named loosening: the same 40 tasks all run and meter $0.40 (ADR-159 bound)', async () => {
    const budget = createInMemoryBudgetLedger({ maxUsdPerMinute: 0.1 });
    const governor = createGovernor({ selfAgentId: 'self', budget, allowUnestimatedUsd: true });
    const { admitted } = await fortyConcurrent(() => governor.admit({ caller: 'c', skill: 's' }));
    expect(admitted).toBe(40);
    expect(budget.snapshot().totals.usd).toBeCloseTo(0.4, 9);
  });
});
