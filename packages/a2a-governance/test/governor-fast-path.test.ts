import { BudgetExceededError } from '@a2aplane/a2a-types';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type BudgetLedger,
  type GovernanceEvent,
  type GovernedTask,
  Governor,
  RecursionPolicy,
  SpendAggregator,
  TaskPolicyEngine,
  childContext,
  createGovernanceEvents,
  createInMemoryBudgetLedger,
  createRootContext,
} from '../src/index.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

/** The same ledger seen through the async interface only (as a shared backend would offer it). */
function asyncOnly(ledger: BudgetLedger): BudgetLedger {
  return {
    acquire: (request, signal) => ledger.acquire(request, signal),
    meter: (ticket, actual) => ledger.meter(ticket, actual),
    snapshot: () => ledger.snapshot(),
  };
}

type Attempt = {
  caller: string;
  skill: string;
  depth: number;
  self?: string;
  estimatedCostUsd?: number;
  finish?: { usd?: number; tokens?: number };
};

const attempts: Attempt[] = [
  { caller: 'A', skill: 'echo', depth: 1, finish: { usd: 0.1, tokens: 10 } },
  { caller: 'A', skill: 'forbidden', depth: 1 },
  { caller: 'A', skill: 'echo', depth: 8 },
  { caller: 'B', skill: 'echo', depth: 2, self: 'agent-1' },
  { caller: 'A', skill: 'echo', depth: 0, estimatedCostUsd: 0.5 },
  { caller: 'B', skill: 'echo', depth: 3 },
  { caller: 'C', skill: 'echo', depth: 1, finish: { usd: 0.2 } },
  { caller: 'C', skill: 'echo', depth: 1 },
  { caller: 'C', skill: 'echo', depth: 1 },
];

function contextAt(depth: number) {
  let context = createRootContext({ rootAgentId: 'agent-0', traceId: TRACE });
  for (let i = 1; i <= depth; i++) context = childContext(context, { parentTaskId: `task-${i}`, receivingAgentId: `agent-${i}` });
  return context;
}

describe('Governor: the synchronous budget path decides as the async one (table-driven)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each([
    ['in-memory ledger (tryAcquire)', (ledger: BudgetLedger) => ledger],
    ['async-only ledger', asyncOnly],
  ])('%s', async (_name, wrap) => {
    async function run(view: (ledger: BudgetLedger) => BudgetLedger) {
      vi.setSystemTime(1_000_000);
      const ledger = createInMemoryBudgetLedger({ maxUsdPerMinute: 1, maxTasksPerMinute: 7 });
      const events = createGovernanceEvents();
      const seen: GovernanceEvent[] = [];
      events.on((event) => seen.push(event));
      const spend = new SpendAggregator();
      const policy = new TaskPolicyEngine({ default: { allowedSkills: ['echo'], maxConcurrency: 2 } });
      const outcomes: unknown[] = [];
      const open: GovernedTask[] = [];
      for (const attempt of attempts) {
        const governor = new Governor({
          selfAgentId: attempt.self ?? 'agent-self',
          budget: view(ledger),
          recursion: new RecursionPolicy(),
          policy,
          events,
          spend,
          allowUnestimatedUsd: true,
        });
        const incoming = attempt.depth === 0 ? undefined : contextAt(attempt.depth);
        try {
          const task = await governor.admit({
            caller: attempt.caller,
            skill: attempt.skill,
            incoming,
            parentTaskId: 'p',
            estimatedCostUsd: attempt.estimatedCostUsd,
          });
          outcomes.push({ ok: true, depth: task.context.depth, visited: task.context.visitedAgents });
          if (attempt.finish) await task.finish(attempt.finish);
          else open.push(task);
        } catch (error) {
          outcomes.push({ ok: false, reason: (error as { reason?: string }).reason, metadata: (error as { metadata?: unknown }).metadata });
        }
        outcomes.push(ledger.snapshot(), policy.activeCount(attempt.caller, attempt.skill));
      }
      for (const task of open) await task.finish({});
      // A task without an incoming context starts a fresh (random) trace.
      const events_ = seen.map((event) => ({
        ...event,
        error: 'error' in event ? event.error.reason : undefined,
        traceId: event.traceId === TRACE ? TRACE : event.traceId && 'fresh',
      }));
      return { outcomes, events: events_, counts: events.counts(), ledger: ledger.snapshot(), spend: spend.byTrace(TRACE) };
    }
    const reference = await run(asyncOnly);
    const result = await run(wrap);
    expect(result).toEqual(reference);
    expect(reference.counts).toMatchObject({
      'rejected.budget': 2,
      'rejected.policy.allowedSkills': 1,
      'rejected.recursion.depth': 1,
      'rejected.recursion.revisit': 1,
    });
    expect(reference.ledger).toMatchObject({ inFlight: 0, reserved: { usd: 0 } });
  });

  it('settles admit synchronously decided without waiting on the ledger', async () => {
    const governor = new Governor({ selfAgentId: 'B', budget: createInMemoryBudgetLedger({ maxTasksPerMinute: 5 }) });
    const order: string[] = [];
    const admitted = governor.admit({ caller: 'A', skill: 's' }).then(() => order.push('admit'));
    const marker = Promise.resolve().then(() => order.push('tick'));
    await Promise.all([admitted, marker]);
    expect(order).toEqual(['admit', 'tick']);
  });

  it('reports bad input as a rejection, never a synchronous throw', async () => {
    const governor = new Governor({
      selfAgentId: 'B',
      budget: createInMemoryBudgetLedger({ maxUsdPerMinute: 1 }),
      allowUnestimatedUsd: true,
    });
    const admitted = governor.admit({ caller: 'A', skill: 's', estimatedCostUsd: -1 });
    await expect(admitted).rejects.toThrow(RangeError);
  });

  it('takes the acquire path for an aborted signal and rejects with its reason', async () => {
    const ledger = createInMemoryBudgetLedger({ maxTasksPerMinute: 5 });
    const governor = new Governor({ selfAgentId: 'B', budget: ledger });
    await expect(governor.admit({ caller: 'A', skill: 's', signal: AbortSignal.abort(new Error('gone')) })).rejects.toThrow('gone');
    expect(ledger.snapshot().totals.tasks).toBe(0);
  });

  it('gives the ticket back when the recursion check throws on a malformed context', async () => {
    const ledger = createInMemoryBudgetLedger({ maxTasksPerMinute: 5 });
    const governor = new Governor({ selfAgentId: 'B', budget: ledger, recursion: new RecursionPolicy() });
    const broken = { ...contextAt(1), visitedAgents: undefined as unknown as string[] };
    await expect(governor.admit({ caller: 'A', skill: 's', incoming: broken })).rejects.toThrow(TypeError);
    expect(ledger.snapshot().inFlight).toBe(0);
  });

  it('gives the ticket and the slot back when building the context throws', async () => {
    const ledger = createInMemoryBudgetLedger({ maxTasksPerMinute: 5 });
    const policy = new TaskPolicyEngine({ default: { maxConcurrency: 1 } });
    const governor = new Governor({ selfAgentId: 'B', budget: ledger, policy });
    const broken = { ...contextAt(1), visitedAgents: undefined as unknown as string[] };
    await expect(governor.admit({ caller: 'A', skill: 's', incoming: broken })).rejects.toThrow();
    expect(ledger.snapshot().inFlight).toBe(0);
    expect(policy.activeCount('A', 's')).toBe(0);
  });
});

describe('GovernedTask.finish', () => {
  it('rejects bad amounts before closing anything, so a retry closes the task once', async () => {
    const ledger = createInMemoryBudgetLedger({ maxUsdPerMinute: 10, clock: () => 0 });
    const policy = new TaskPolicyEngine({ default: { maxConcurrency: 1 } });
    const spend = new SpendAggregator();
    const governor = new Governor({ selfAgentId: 'B', budget: ledger, policy, spend, allowUnestimatedUsd: true });
    const task = await governor.admit({ caller: 'A', skill: 's' });
    await expect(task.finish({ usd: -1 })).rejects.toThrow(RangeError);
    expect(ledger.snapshot().inFlight).toBe(1);
    expect(policy.activeCount('A', 's')).toBe(1);
    const finished = task.finish({ usd: 0.25, tokens: 5 });
    expect(task.finish({ usd: 1 })).toBe(finished);
    await finished;
    expect(ledger.snapshot()).toMatchObject({ inFlight: 0, window: { usd: 0.25, tokens: 5 } });
    expect(policy.activeCount('A', 's')).toBe(0);
    expect(spend.byTrace(task.context.traceId)).toEqual({ usd: 0.25, tokens: 5, tasks: 1 });
  });

  it('is a method on the task: meterTokens and finish work on the object the Governor returns', async () => {
    const governor = new Governor({ selfAgentId: 'B', policy: new TaskPolicyEngine({ default: { maxTokens: 3 } }) });
    const task = await governor.admit({ caller: 'A', skill: 's' });
    task.meterTokens(4);
    expect(task.signal.aborted).toBe(true);
    expect(() => task.meterTokens(Number.NaN)).toThrow(RangeError);
    await task.finish({});
  });
});

describe('Governor with a refusing ledger', () => {
  it('emits the budget rejection and rethrows the typed error from the acquire path', async () => {
    const events = createGovernanceEvents();
    const governor = new Governor({ selfAgentId: 'B', budget: createInMemoryBudgetLedger({ maxTasksPerMinute: 0 }), events });
    const first = await governor.admit({ caller: 'A', skill: 's' }).catch((error: unknown) => error);
    const second = await governor.admit({ caller: 'A', skill: 's' }).catch((error: unknown) => error);
    expect(BudgetExceededError.isInstance(first)).toBe(true);
    expect(second).toBe(first);
    expect(events.counts()).toEqual({ 'rejected.budget': 2, 'rejected.budget.tasks': 2 });
  });
});
