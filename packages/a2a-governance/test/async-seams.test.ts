import { BudgetExceededError, PolicyViolationError, ServiceUnavailableError } from '@a2aplane/a2a-types';
import { describe, expect, it } from 'vitest';
import {
  type BudgetLedger,
  type ConcurrencySlots,
  createGovernanceEvents,
  createInMemoryBudgetLedger,
  Governor,
  type SlotGrant,
  type SlotLease,
  TaskPolicyEngine,
} from '../src/index.js';

/** A ledger with only the async methods (as a shared backend has), over the in-memory one. */
function asyncLedger(inner: BudgetLedger, reserveMore?: (granted: boolean) => Promise<boolean>): BudgetLedger {
  return {
    acquire: async (request, signal) => inner.acquire(request, signal),
    reserveMore: (ticket, more) => {
      const granted = inner.reserveMore?.(ticket, more) as boolean;
      return reserveMore ? reserveMore(granted) : Promise.resolve(granted);
    },
    meter: async (ticket, actual) => inner.meter(ticket, actual),
    snapshot: () => inner.snapshot(),
  };
}

/** Async slots counted in a map, with a log of releases. */
function asyncSlots(): ConcurrencySlots & { held: Map<string, number>; released: number; fail: boolean } {
  const held = new Map<string, number>();
  const slots = {
    held,
    released: 0,
    fail: false,
    async acquire(caller: string, skill: string, max: number): Promise<SlotGrant> {
      await Promise.resolve();
      if (slots.fail) throw new ServiceUnavailableError({ metadata: { backend: 'test' } });
      const key = `${caller}/${skill}`;
      const active = held.get(key) ?? 0;
      if (active >= max) return { ok: false, active };
      held.set(key, active + 1);
      return { ok: true, lease: { key } };
    },
    release(lease: SlotLease): void {
      const { key } = lease as { key: string };
      held.set(key, (held.get(key) ?? 1) - 1);
      slots.released++;
    },
  };
  return slots;
}

describe('Governor with an async-only ledger', () => {
  it('admits, meters and counts the ticket without tryAcquire', async () => {
    const inner = createInMemoryBudgetLedger({ maxTasksPerMinute: 1 });
    const governor = new Governor({ selfAgentId: 'self', budget: asyncLedger(inner) });
    const task = await governor.admit({ caller: 'c', skill: 's' });
    await expect(governor.admit({ caller: 'c', skill: 's' })).rejects.toSatisfy((e: unknown) => BudgetExceededError.isInstance(e));
    await task.finish({ usd: 0 });
    expect(inner.snapshot().inFlight).toBe(0);
  });

  it('a mid-task refusal of the async reserveMore cuts the task: the meter call returns a promise of the cut, later calls the cut', async () => {
    const events = createGovernanceEvents();
    const inner = createInMemoryBudgetLedger({ maxUsdPerMinute: 0.1 });
    const governor = new Governor({ selfAgentId: 'self', budget: asyncLedger(inner), events, estimateCost: () => 0.02 });
    const task = await governor.admit({ caller: 'c', skill: 's' });
    const grown = task.meterUsd(0.05);
    expect(grown).toBeInstanceOf(Promise);
    expect(await grown).toBeUndefined();
    expect(inner.snapshot().reserved.usd).toBe(0.05);
    const pending = task.meterUsd(0.06);
    expect(pending).toBeInstanceOf(Promise);
    const cut = await pending;
    expect(BudgetExceededError.isInstance(cut)).toBe(true);
    expect((cut as BudgetExceededError).metadata).toMatchObject({ limit: 'usd', actual: '0.11' });
    expect(task.meterUsd(0.01)).toBe(cut);
    expect(events.counts()['aborted.budget.usd']).toBe(1);
    await task.finish({});
    expect(inner.snapshot().inFlight).toBe(0);
  });

  it('a ledger failure during reserveMore cuts the task (fail closed) with cause ledger_unavailable', async () => {
    const inner = createInMemoryBudgetLedger({ maxTokensPerMinute: 1000 });
    const failing = asyncLedger(inner, () => Promise.reject(new ServiceUnavailableError()));
    const governor = new Governor({ selfAgentId: 'self', budget: failing });
    const task = await governor.admit({ caller: 'c', skill: 's', estimatedTokens: 10 });
    expect(task.meterTokens(5)).toBeUndefined(); // inside the reservation: no ledger call
    const cut = await task.meterTokens(10);
    expect(BudgetExceededError.isInstance(cut)).toBe(true);
    expect((cut as BudgetExceededError).metadata).toMatchObject({ limit: 'tokens', cause: 'ledger_unavailable' });
    await task.finish({});
  });
});

describe('TaskPolicyEngine with async ConcurrencySlots', () => {
  it('admitAsync counts slots through the seam, refuses past max with the count, and release gives the slot back once', async () => {
    const slots = asyncSlots();
    const engine = new TaskPolicyEngine({ default: { maxConcurrency: 2 }, slots });
    const first = await engine.admitAsync({ caller: 'p', skill: 's' });
    const second = await engine.admitAsync({ caller: 'p', skill: 's' });
    expect(first.ok && second.ok).toBe(true);
    const third = await engine.admitAsync({ caller: 'p', skill: 's' });
    expect(third.ok).toBe(false);
    if (!third.ok) expect(third.error.metadata).toMatchObject({ field: 'maxConcurrency', limit: '2', actual: '3' });
    if (first.ok) {
      first.admission.release();
      first.admission.release();
    }
    expect(slots.released).toBe(1);
    expect(slots.held.get('p/s')).toBe(1);
    expect((await engine.admitAsync({ caller: 'p', skill: 's' })).ok).toBe(true);
  });

  it('admit() refuses async slots with a TypeError and gives the slot it got back', async () => {
    const slots = asyncSlots();
    const engine = new TaskPolicyEngine({ slots });
    expect(() => engine.admit({ caller: 'p', skill: 's' })).toThrow(TypeError);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(slots.held.get('p/s')).toBe(0);
  });

  it('a cost refusal after the slot gives the slot back; skills outside allowedSkills never ask the slots', async () => {
    const slots = asyncSlots();
    const engine = new TaskPolicyEngine({ default: { maxCostUsd: 1, allowedSkills: ['s'] }, slots });
    const costly = await engine.admitAsync({ caller: 'p', skill: 's', estimatedCostUsd: 2 });
    expect(costly.ok).toBe(false);
    expect(slots.held.get('p/s')).toBe(0);
    const other = await engine.admitAsync({ caller: 'p', skill: 'x' });
    expect(other.ok).toBe(false);
    expect(slots.held.has('p/x')).toBe(false);
  });

  it('Governor: async slots admit and finish releases; a slots failure rejects admit and gives the budget ticket back', async () => {
    const slots = asyncSlots();
    const budget = createInMemoryBudgetLedger({ maxTasksPerMinute: 100 });
    const governor = new Governor({ selfAgentId: 'self', budget, policy: new TaskPolicyEngine({ default: { maxConcurrency: 1 }, slots }) });
    const task = await governor.admit({ caller: 'c', skill: 's' });
    await expect(governor.admit({ caller: 'c', skill: 's' })).rejects.toSatisfy((e: unknown) => PolicyViolationError.isInstance(e));
    await task.finish({});
    expect(slots.held.get('c/s')).toBe(0);
    slots.fail = true;
    await expect(governor.admit({ caller: 'c', skill: 's' })).rejects.toSatisfy((e: unknown) => ServiceUnavailableError.isInstance(e));
    expect(budget.snapshot().inFlight).toBe(0);
  });
});
