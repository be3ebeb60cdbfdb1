import { BudgetExceededError, PolicyViolationError } from '@a2aplane/a2a-types';
import { describe, expect, it } from 'vitest';
import {
  createGovernanceEvents,
  createInMemoryBudgetLedger,
  Governor,
  materializeConfig,
  TaskPolicyEngine,
  validateOperatorConfig,
} from '../src/index.js';

describe('cost estimates and mid-task cost limits', () => {
  it('estimateCost feeds the ledger reservation and the policy check when admit has no estimate', async () => {
    const budget = createInMemoryBudgetLedger({ maxUsdPerMinute: 1 });
    const governor = new Governor({ selfAgentId: 'self', budget, estimateCost: ({ skill }) => (skill === 'big' ? 0.4 : undefined) });
    const task = await governor.admit({ caller: 'c', skill: 'big' });
    expect(budget.snapshot().reserved.usd).toBe(0.4);
    await task.finish({ usd: 0.4 });
    const unknown = await governor.admit({ caller: 'c', skill: 'small' });
    expect(budget.snapshot().reserved.usd).toBe(0);
    await unknown.finish({});
    const strict = new Governor({
      selfAgentId: 'self',
      policy: new TaskPolicyEngine({ default: { maxCostUsd: 0.1 } }),
      estimateCost: () => 0.4,
    });
    await expect(strict.admit({ caller: 'c', skill: 'big' })).rejects.toSatisfy((e: unknown) => PolicyViolationError.isInstance(e));
  });

  it('meterUsd past maxCostUsd aborts the task signal with PolicyViolationError (maxCostUsd)', async () => {
    const governor = new Governor({ selfAgentId: 'self', policy: new TaskPolicyEngine({ default: { maxCostUsd: 0.05 } }) });
    const task = await governor.admit({ caller: 'c', skill: 's' });
    task.meterUsd(0.05);
    expect(task.signal.aborted).toBe(false);
    task.meterUsd(0.01);
    expect(task.signal.aborted).toBe(true);
    expect(task.signal.reason).toMatchObject({ reason: 'POLICY_VIOLATION', metadata: { field: 'maxCostUsd' } });
    await task.finish({});
  });

  it('spend past the reservation grows it while the window has room, and meter calls return the cut (BudgetExceededError) when not', async () => {
    const events = createGovernanceEvents();
    const budget = createInMemoryBudgetLedger({ maxUsdPerMinute: 0.1 });
    const governor = new Governor({ selfAgentId: 'self', budget, events, estimateCost: () => 0.02 });
    const task = await governor.admit({ caller: 'c', skill: 's' });
    expect(task.meterUsd(0.05)).toBeUndefined();
    expect(budget.snapshot().reserved.usd).toBe(0.05);
    const cut = task.meterUsd(0.06);
    expect(BudgetExceededError.isInstance(cut)).toBe(true);
    expect((cut as BudgetExceededError).metadata).toMatchObject({ limit: 'usd' });
    // Sticky: later meter calls return the same cut.
    expect(task.meterTokens(1)).toBe(cut);
    expect(events.counts()['aborted.budget.usd']).toBe(1);
    await task.finish({});
    // finish without amounts meters what was reported.
    expect(budget.snapshot()).toMatchObject({ inFlight: 0, reserved: { usd: 0 }, totals: { usd: 0.11 } });
  });

  it("a budget cut's event names the admission's caller, skill and the task's trace", async () => {
    const events = createGovernanceEvents();
    const seen: unknown[] = [];
    events.on((event) => {
      if (event.type === 'aborted') seen.push(event);
    });
    const budget = createInMemoryBudgetLedger({ maxUsdPerMinute: 0.1 });
    const governor = new Governor({ selfAgentId: 'self', budget, events, allowUnestimatedUsd: true });
    const task = await governor.admit({ caller: 'agent:c', skill: 'summarize' });
    expect(BudgetExceededError.isInstance(task.meterUsd(0.2))).toBe(true);
    expect(seen).toEqual([
      expect.objectContaining({
        stage: 'budget',
        reason: 'usd',
        caller: 'agent:c',
        skill: 'summarize',
        traceId: task.context.traceId,
      }),
    ]);
    await task.finish({});
  });

  it('reserveMore: grants within the cap, refuses past it and for tickets no longer in flight', async () => {
    const budget = createInMemoryBudgetLedger({ maxUsdPerMinute: 1, maxTokensPerMinute: 10 });
    const ticket = await budget.acquire({ estimatedUsd: 0.5 });
    expect(budget.reserveMore!(ticket, { usd: 0.5 })).toBe(true);
    expect(budget.reserveMore!(ticket, { usd: 0.01 })).toBe(false);
    expect(budget.reserveMore!(ticket, { tokens: 10 })).toBe(true);
    expect(budget.reserveMore!(ticket, { tokens: 1 })).toBe(false);
    expect(budget.snapshot().reserved).toEqual({ usd: 1, tokens: 10 });
    await budget.meter(ticket, { usd: 0.2 });
    expect(budget.snapshot().reserved).toEqual({ usd: 0, tokens: 0 });
    expect(budget.reserveMore!(ticket, { usd: 0.01 })).toBe(false);
    expect(() => budget.reserveMore!(ticket, { usd: -1 })).toThrow(RangeError);
  });

  it('the operator config cost block estimates per skill, else default_usd', () => {
    const parsed = validateOperatorConfig({ cost: { default_usd: 0.01, skills: { 'rag.query': 0.05 } } });
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const { estimateCost } = materializeConfig(parsed.config, { knownSelectors: [] });
    expect(estimateCost?.({ caller: 'c', skill: 'rag.query' })).toBe(0.05);
    expect(estimateCost?.({ caller: 'c', skill: 'other' })).toBe(0.01);
    expect(estimateCost?.({ caller: 'c', skill: 'constructor' })).toBe(0.01);
    expect(materializeConfig({}, { knownSelectors: [] }).estimateCost).toBeUndefined();
    expect(validateOperatorConfig({ cost: { skills: { x: -1 } } }).ok).toBe(false);
    expect(validateOperatorConfig({ cost: { typo: 1 } }).ok).toBe(false);
  });
});
