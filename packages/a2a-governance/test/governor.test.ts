import { BudgetExceededError, PolicyViolationError, RecursionLimitError } from '@a2aplane/a2a-types';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type BudgetLedger,
  type GovernanceEvent,
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

function spyPolicy(options: ConstructorParameters<typeof TaskPolicyEngine>[0] = {}) {
  const engine = new TaskPolicyEngine(options);
  const admit = vi.spyOn(engine, 'admit');
  return { engine, admit };
}

function spyRecursion(options: ConstructorParameters<typeof RecursionPolicy>[0] = {}) {
  const recursion = new RecursionPolicy(options);
  const check = vi.spyOn(recursion, 'check');
  return { recursion, check };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('Governor: budget -> recursion -> policy (ADR-159 M3 test 6 dispatch_order, in spirit)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a budget rejection means recursion and policy are never evaluated', async () => {
    const budget = createInMemoryBudgetLedger({ maxTasksPerMinute: 0 });
    const { recursion, check } = spyRecursion();
    const { engine, admit } = spyPolicy();
    const events = createGovernanceEvents();
    const governor = new Governor({ selfAgentId: 'B', budget, recursion, policy: engine, events });
    const incoming = createRootContext({ rootAgentId: 'A', traceId: TRACE });
    const error = await rejection(governor.admit({ caller: 'A', skill: 's', incoming }));
    expect(BudgetExceededError.isInstance(error)).toBe(true);
    expect(check).not.toHaveBeenCalled();
    expect(admit).not.toHaveBeenCalled();
    expect(events.counts()).toEqual({ 'rejected.budget': 1, 'rejected.budget.tasks': 1 });
  });

  it('a recursion rejection means policy is never evaluated, and the budget ticket is closed', async () => {
    const budget = createInMemoryBudgetLedger({ maxTasksPerMinute: 10 });
    const { recursion } = spyRecursion();
    const { engine, admit } = spyPolicy();
    const seen: GovernanceEvent[] = [];
    const events = createGovernanceEvents();
    events.on((event) => seen.push(event));
    const governor = new Governor({ selfAgentId: 'A', budget, recursion, policy: engine, events });
    const incoming = childContext(childContext(createRootContext({ rootAgentId: 'A' }), { parentTaskId: 't1', receivingAgentId: 'B' }), {
      parentTaskId: 't2',
      receivingAgentId: 'C',
    });
    const error = await rejection(governor.admit({ caller: 'C', skill: 's', incoming }));
    expect(RecursionLimitError.isInstance(error)).toBe(true);
    expect((error as RecursionLimitError).metadata.path).toBe('A -> B -> C -> A');
    expect(admit).not.toHaveBeenCalled();
    expect(seen.map((e) => `${e.type}:${'stage' in e ? e.stage : ''}`)).toEqual(['accepted:budget', 'rejected:recursion']);
    expect(budget.snapshot().inFlight).toBe(0);
    expect(events.counts()['rejected.recursion.revisit']).toBe(1);
  });

  it('a policy rejection comes after budget and recursion accepted', async () => {
    const { recursion, check } = spyRecursion();
    const { engine } = spyPolicy({ default: { allowedSkills: ['ok'] } });
    const events = createGovernanceEvents();
    const governor = new Governor({
      selfAgentId: 'B',
      budget: createInMemoryBudgetLedger({ maxTasksPerMinute: 5 }),
      recursion,
      policy: engine,
      events,
    });
    const incoming = createRootContext({ rootAgentId: 'A' });
    const error = await rejection(governor.admit({ caller: 'A', skill: 'nope', incoming }));
    expect(PolicyViolationError.isInstance(error)).toBe(true);
    expect(check).toHaveBeenCalledOnce();
    expect(events.counts()).toEqual({
      'accepted.budget': 1,
      'accepted.recursion': 1,
      'rejected.policy': 1,
      'rejected.policy.allowedSkills': 1,
    });
  });

  it('admits a task under the child context, meters it once, records spend and frees the slot', async () => {
    const budget = createInMemoryBudgetLedger({ maxUsdPerMinute: 10 });
    const spend = new SpendAggregator();
    const { engine } = spyPolicy({ default: { maxConcurrency: 1 } });
    const events = createGovernanceEvents();
    const governor = new Governor({
      selfAgentId: 'B',
      budget,
      recursion: new RecursionPolicy(),
      policy: engine,
      events,
      spend,
      allowUnestimatedUsd: true,
    });
    const incoming = createRootContext({ rootAgentId: 'A', traceId: TRACE });
    const task = await governor.admit({ caller: 'A', skill: 's', incoming, parentTaskId: 'task-a' });
    expect(task.context).toEqual({ traceId: TRACE, parentTaskId: 'task-a', depth: 1, rootAgentId: 'A', visitedAgents: ['A', 'B'] });
    await expect(rejection(governor.admit({ caller: 'A', skill: 's', incoming }))).resolves.toMatchObject({
      metadata: { field: 'maxConcurrency' },
    });
    await task.finish({ usd: 0.5, tokens: 100 });
    await task.finish({ usd: 0.5, tokens: 100 });
    expect(budget.snapshot().window).toMatchObject({ usd: 0.5, tokens: 100 });
    expect(spend.byTrace(TRACE)).toEqual({ usd: 0.5, tokens: 100, tasks: 1 });
    expect(spend.byRootAgent('A')).toEqual({ usd: 0.5, tokens: 100, tasks: 1 });
    expect(events.counts().metered).toBe(1);
    const again = await governor.admit({ caller: 'A', skill: 's', incoming });
    await again.finish({});
  });

  it('starts a fresh root when there is no incoming context', async () => {
    const governor = new Governor({ selfAgentId: 'B' });
    const task = await governor.admit({ caller: 'user', skill: 's' });
    expect(task.context).toMatchObject({ depth: 0, rootAgentId: 'B', visitedAgents: ['B'] });
    await task.finish({});
  });

  it('forwards mid-task policy aborts and caller cancellation to the task signal', async () => {
    const events = createGovernanceEvents();
    const governor = new Governor({ selfAgentId: 'B', policy: new TaskPolicyEngine({ default: { maxTokens: 5 } }), events });
    const task = await governor.admit({ caller: 'A', skill: 's' });
    task.meterTokens(6);
    expect(task.signal.aborted).toBe(true);
    expect((task.signal.reason as PolicyViolationError).metadata.field).toBe('maxTokens');
    expect(events.counts()['aborted.policy.maxTokens']).toBe(1);
    await task.finish({});

    const controller = new AbortController();
    const cancellable = await governor.admit({ caller: 'A', skill: 's', signal: controller.signal });
    controller.abort(new Error('client canceled'));
    expect(cancellable.signal.reason).toEqual(new Error('client canceled'));
    await cancellable.finish({});
  });

  it('passes the caller signal to a queued budget wait', async () => {
    const budget: BudgetLedger = createInMemoryBudgetLedger({ maxTasksPerMinute: 1, overflow: { kind: 'queue', maxQueueDepth: 1 } });
    const governor = new Governor({ selfAgentId: 'B', budget });
    const first = await governor.admit({ caller: 'A', skill: 's' });
    const controller = new AbortController();
    const waiting = governor.admit({ caller: 'A', skill: 's', signal: controller.signal });
    controller.abort(new Error('gave up'));
    await expect(waiting).rejects.toThrow('gave up');
    expect(budget.snapshot().queueDepth).toBe(0);
    await first.finish({});
  });
});

describe('SpendAggregator', () => {
  it('answers "which root task is burning our tokens?"', () => {
    const spend = new SpendAggregator();
    spend.record({ traceId: 't1', rootAgentId: 'A', usd: 0.1, tokens: 10 });
    spend.record({ traceId: 't2', rootAgentId: 'B', usd: 0.7, tokens: 70 });
    spend.record({ traceId: 't3', rootAgentId: 'A', usd: 0.2, tokens: 20 });
    expect(spend.topRoots(1)).toEqual([{ rootAgentId: 'B', usd: 0.7, tokens: 70, tasks: 1 }]);
    expect(spend.byRootAgent('A')).toEqual({ usd: 0.3, tokens: 30, tasks: 2 });
    expect(spend.byTrace('missing')).toEqual({ usd: 0, tokens: 0, tasks: 0 });
  });

  it('bounds memory by dropping the least recently updated trace', () => {
    const spend = new SpendAggregator({ maxTraces: 2 });
    spend.record({ traceId: 't1', rootAgentId: 'A', usd: 1, tokens: 1 });
    spend.record({ traceId: 't2', rootAgentId: 'A', usd: 1, tokens: 1 });
    spend.record({ traceId: 't1', rootAgentId: 'A', usd: 1, tokens: 1 });
    spend.record({ traceId: 't3', rootAgentId: 'A', usd: 1, tokens: 1 });
    expect(spend.byTrace('t2').tasks).toBe(0);
    expect(spend.byTrace('t1').tasks).toBe(2);
  });
});

describe('GovernanceEvents', () => {
  it('ignores a throwing listener and supports unsubscribe', () => {
    const events = createGovernanceEvents();
    const seen: string[] = [];
    events.on(() => {
      throw new Error('bad listener');
    });
    const off = events.on((event) => seen.push(event.type));
    events.emit({ type: 'metered', usd: 1, tokens: 1 });
    off();
    events.emit({ type: 'metered', usd: 1, tokens: 1 });
    expect(seen).toEqual(['metered']);
    expect(events.counts()).toEqual({ metered: 2 });
  });
});

describe('SpendAggregator eviction by update stamp', () => {
  it('evicts the least recently updated, an eighth of the limit at a time, and keeps counting after', () => {
    const spend = new SpendAggregator({ maxTraces: 16 });
    for (let i = 0; i < 16; i++) spend.record({ traceId: `t${i}`, rootAgentId: 'A', usd: 0, tokens: 1 });
    // t0 is updated again, so t1, t2, t3 are the least recently updated: 1 over the limit + 16 / 8 go.
    spend.record({ traceId: 't0', rootAgentId: 'A', usd: 0, tokens: 1 });
    spend.record({ traceId: 't16', rootAgentId: 'A', usd: 0, tokens: 1 });
    expect(spend.byTrace('t0').tasks).toBe(2);
    expect(spend.byTrace('t1').tasks).toBe(0);
    expect(spend.byTrace('t2').tasks).toBe(0);
    expect(spend.byTrace('t3').tasks).toBe(0);
    expect(spend.byTrace('t4').tasks).toBe(1);
    expect(spend.byTrace('t16').tasks).toBe(1);
    // The repeated key right after an eviction is still counted on the live entry.
    spend.record({ traceId: 't16', rootAgentId: 'A', usd: 0, tokens: 1 });
    expect(spend.byTrace('t16').tasks).toBe(2);
    expect(spend.byRootAgent('A').tasks).toBe(19);
  });

  it('keeps exactly the entries a reference least-recently-updated model keeps (random updates)', () => {
    let seed = 7;
    const random = (n: number): number => {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0; // 32-bit LCG; its high bits are the random ones
      return (seed >>> 8) % n;
    };
    const limit = 16;
    const spend = new SpendAggregator({ maxTraces: limit });
    // Reference: keys in update order, oldest first; counts per live key.
    let order: string[] = [];
    const counts = new Map<string, number>();
    for (let step = 0; step < 5000; step++) {
      const key = `t${random(40)}`;
      spend.record({ traceId: key, rootAgentId: 'A', usd: 0, tokens: 1 });
      if (counts.has(key)) {
        order = order.filter((k) => k !== key);
      } else if (order.length >= limit) {
        const drop = order.length - limit + 1 + (limit >> 3);
        for (const gone of order.splice(0, drop)) counts.delete(gone);
      }
      order.push(key);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    for (let i = 0; i < 40; i++) expect(spend.byTrace(`t${i}`).tasks).toBe(counts.get(`t${i}`) ?? 0);
  });

  it('orders topRoots ties by least recent update first, as before', () => {
    const spend = new SpendAggregator();
    spend.record({ traceId: 't', rootAgentId: 'A', usd: 1, tokens: 1 });
    spend.record({ traceId: 't', rootAgentId: 'B', usd: 1, tokens: 1 });
    spend.record({ traceId: 't', rootAgentId: 'A', usd: 0, tokens: 0 });
    expect(spend.topRoots(2).map((root) => root.rootAgentId)).toEqual(['B', 'A']);
  });
});

describe('GovernanceEvents counters', () => {
  it('counts every stage and reason, including ones the package does not emit itself', () => {
    const events = createGovernanceEvents();
    const error = new PolicyViolationError({ metadata: { field: 'maxTokens' } });
    events.emit({ type: 'accepted', stage: 'selector' });
    events.emit({ type: 'rejected', stage: 'policy', reason: 'custom', error });
    events.emit({ type: 'rejected', stage: 'policy', reason: 'custom', error });
    events.emit({ type: 'aborted', stage: 'policy', reason: 'maxTokens', error });
    events.emit({ type: 'accepted', stage: 'other' as 'budget' });
    expect(events.counts()).toEqual({
      'accepted.selector': 1,
      'rejected.policy': 2,
      'rejected.policy.custom': 2,
      'aborted.policy.maxTokens': 1,
      'accepted.other': 1,
    });
  });
});
