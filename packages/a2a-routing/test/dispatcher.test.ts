import {
  type GovernanceEvent,
  RecursionPolicy,
  SpendAggregator,
  TaskPolicyEngine,
  childContext,
  createGovernanceEvents,
  createInMemoryBudgetLedger,
  createRootContext,
  readTaskContext,
} from '@a2aplane/a2a-governance';
import { BudgetExceededError, PolicyViolationError, RecursionLimitError } from '@a2aplane/a2a-types';
import { describe, expect, it, vi } from 'vitest';
import {
  type DispatchRequest,
  Dispatcher,
  type DispatcherOptions,
  type ExecutionInput,
  type ExecutionOutcome,
  type Executor,
  NoEligiblePeerError,
  PeerPool,
  type PeerSelector,
  createLocalExecutor,
  createStreamingExecutor,
  lowestLatency,
} from '../src/index.js';
import { STREAM, card, replaySource, request } from './fixtures.js';

const ROOT = createRootContext({ rootAgentId: 'agent-a' });

function setup(overrides: Partial<DispatcherOptions> = {}) {
  const pool = new PeerPool();
  pool.upsert('agent-b', card(), { ewmaLatencyMs: 100 });
  pool.upsert('agent-c', card(), { ewmaLatencyMs: 200 });
  const calls: string[] = [];
  const executorSpy = vi.fn(
    async (_input: ExecutionInput): Promise<ExecutionOutcome> => ({
      final: { task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } },
      updates: [],
      usage: { usd: 0.02, tokens: 40 },
    }),
  );
  const remoteExecutor = vi.fn((peer: { id: string }): Executor => {
    calls.push(`remote:${peer.id}`);
    return { kind: 'remote', execute: executorSpy };
  });
  const events = createGovernanceEvents();
  const seen: GovernanceEvent[] = [];
  events.on((event) => seen.push(event));
  const dispatcher = new Dispatcher({ selfAgentId: 'agent-a', pool, selector: lowestLatency(), remoteExecutor, events, ...overrides });
  const dispatch = (extra: Partial<DispatchRequest> = {}) =>
    dispatcher.dispatch({ request: request(), task: { skillId: 'analysis' }, caller: 'agent-a', context: ROOT, ...extra });
  return { pool, dispatcher, dispatch, executorSpy, remoteExecutor, events, seen, calls };
}

const throwingSelector = (): PeerSelector & { calls: number } => {
  const selector = {
    name: 'throws',
    calls: 0,
    select(): never {
      selector.calls++;
      throw new Error('selector must not run');
    },
  };
  return selector;
};

describe('Dispatcher order (ADR-159 r3 dispatch_order, ARCHITECTURE "dispatch pipeline")', () => {
  it('routes to the selected peer with lineage on the wire and the child context in the result', async () => {
    const { dispatch, executorSpy } = setup();
    const result = await dispatch({ parentTaskId: 'task-1' });
    expect(result.executor).toBe('remote');
    expect(result.peerId).toBe('agent-b');
    expect(result.context).toEqual(childContext(ROOT, { parentTaskId: 'task-1', receivingAgentId: 'agent-b' }));
    const input = executorSpy.mock.calls[0]![0];
    const read = readTaskContext(input.request.message.metadata);
    // The delegating task is named on the wire: the receiver's child context keeps it as parent.
    expect(read.ok && read.context).toEqual({ ...ROOT, parentTaskId: 'task-1' });
    expect(input.context).toEqual({ ...ROOT, parentTaskId: 'task-1' });
    expect(input.request.message.metadata?.keep).toBe('me');
  });

  it('without a parentTaskId the wire carries the delegating context as it is', async () => {
    const { dispatch, executorSpy } = setup();
    const parented = { ...ROOT, parentTaskId: 'grandparent' };
    await dispatch({ context: parented });
    const read = readTaskContext(executorSpy.mock.calls[0]![0].request.message.metadata);
    expect(read.ok && read.context).toEqual(parented);
  });

  it('budget exhausted: BudgetExceededError and the selector is never called', async () => {
    const selector = throwingSelector();
    const budget = createInMemoryBudgetLedger({ maxTasksPerMinute: 0 });
    const { dispatch, executorSpy, seen } = setup({ selector, budget });
    await expect(dispatch()).rejects.toSatisfy((error: unknown) => BudgetExceededError.isInstance(error));
    expect(selector.calls).toBe(0);
    expect(executorSpy).not.toHaveBeenCalled();
    expect(seen.map((e) => `${e.type}:${'stage' in e ? e.stage : ''}`)).toEqual(['rejected:budget']);
  });

  it('recursion rejection (depth) happens before the selector', async () => {
    const selector = throwingSelector();
    const { dispatch, executorSpy, seen } = setup({ selector, recursion: new RecursionPolicy({ maxCallDepth: 1 }) });
    const deep = childContext(ROOT, { receivingAgentId: 'agent-x' });
    await expect(dispatch({ context: deep })).rejects.toSatisfy((error: unknown) => RecursionLimitError.isInstance(error));
    expect(selector.calls).toBe(0);
    expect(executorSpy).not.toHaveBeenCalled();
    expect(seen.at(-1)).toMatchObject({ type: 'rejected', stage: 'recursion', reason: 'depth' });
  });

  it('recursion: visited peers are dropped before selection; only visited peers qualifying is a RecursionLimitError', async () => {
    const { dispatch } = setup({ recursion: new RecursionPolicy() });
    // The lineage already holds agent-b, the lowest-latency peer: agent-c is chosen instead.
    const viaB = childContext(ROOT, { receivingAgentId: 'agent-b' });
    const result = await dispatch({ context: viaB });
    expect(result.peerId).toBe('agent-c');
    const selector = throwingSelector();
    const again = setup({ recursion: new RecursionPolicy(), selector });
    again.pool.remove('agent-c');
    await expect(again.dispatch({ context: viaB })).rejects.toSatisfy((error: unknown) => RecursionLimitError.isInstance(error));
    expect(selector.calls).toBe(0);
    expect(again.seen.at(-1)).toMatchObject({ type: 'rejected', stage: 'recursion', reason: 'revisit' });
  });

  it('recursion: A -> B -> C -> A is rejected before the second A call (targetAgentId)', async () => {
    const { dispatch, executorSpy, pool } = setup({ recursion: new RecursionPolicy() });
    pool.upsert('agent-root', card());
    const viaC = childContext(childContext(createRootContext({ rootAgentId: 'agent-root' }), { receivingAgentId: 'agent-b' }), {
      receivingAgentId: 'agent-c',
    });
    await expect(dispatch({ context: viaC, targetAgentId: 'agent-root' })).rejects.toSatisfy((error: unknown) =>
      RecursionLimitError.isInstance(error),
    );
    expect(executorSpy).not.toHaveBeenCalled();
  });

  it('policy rejection happens after selection and before the executor', async () => {
    const selectorSpy = vi.fn(lowestLatency().select);
    const policy = new TaskPolicyEngine({ default: { allowedSkills: ['summarize'] } });
    const { dispatch, executorSpy, remoteExecutor, seen } = setup({ selector: { name: 'spy', select: selectorSpy }, policy });
    await expect(dispatch()).rejects.toSatisfy((error: unknown) => PolicyViolationError.isInstance(error));
    expect(selectorSpy).toHaveBeenCalledTimes(1);
    expect(remoteExecutor).not.toHaveBeenCalled();
    expect(executorSpy).not.toHaveBeenCalled();
    expect(seen.filter((e) => e.type === 'accepted').map((e) => (e as { stage: string }).stage)).toEqual(['selector']);
    expect(seen.at(-1)).toMatchObject({ type: 'rejected', stage: 'policy', reason: 'allowedSkills' });
  });

  it('no eligible peer and no fallback: NoEligiblePeerError', async () => {
    const { dispatch, seen } = setup();
    await expect(dispatch({ task: { skillId: 'translate' } })).rejects.toSatisfy((error: unknown) => NoEligiblePeerError.isInstance(error));
    expect(seen.at(-1)).toMatchObject({ type: 'rejected', stage: 'selector' });
  });

  it('falls back to the in-process executor when no peer qualifies', async () => {
    const fallback = createLocalExecutor(replaySource(STREAM));
    const { dispatch, remoteExecutor } = setup({ fallback });
    const result = await dispatch({ task: { skillId: 'translate' } });
    expect(result.executor).toBe('local');
    expect(result.peerId).toBeUndefined();
    expect(result.final.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(remoteExecutor).not.toHaveBeenCalled();
  });
});

describe('Dispatcher accounting on every ending', () => {
  const governed = () => {
    const budget = createInMemoryBudgetLedger({ maxUsdPerMinute: 10 });
    const policy = new TaskPolicyEngine({ default: { maxConcurrency: 1 } });
    const spend = new SpendAggregator();
    return { budget, policy, spend, allowUnestimatedUsd: true };
  };

  it('success: slot released, usage metered into the ledger, spend by trace, pool outcome recorded', async () => {
    const g = governed();
    const { dispatch, pool } = setup(g);
    await dispatch();
    expect(g.policy.activeCount('agent-a', 'analysis')).toBe(0);
    expect(g.budget.snapshot().window?.usd).toBeCloseTo(0.02);
    expect(g.budget.snapshot().inFlight).toBe(0);
    expect(g.spend.byTrace(ROOT.traceId).usd).toBeCloseTo(0.02);
    expect(pool.get('agent-b')?.ewmaCostUsd).toBeCloseTo(0.02);
    expect(pool.get('agent-b')?.openTasks).toBe(0);
  });

  it('executor throw: slot released, ticket metered, failure recorded, error rethrown', async () => {
    const g = governed();
    const { dispatch, pool, executorSpy } = setup(g);
    const boom = new Error('peer 503');
    executorSpy.mockRejectedValueOnce(boom);
    await expect(dispatch()).rejects.toBe(boom);
    expect(g.policy.activeCount('agent-a', 'analysis')).toBe(0);
    expect(g.budget.snapshot().inFlight).toBe(0);
    expect(pool.get('agent-b')?.failureRate).toBeGreaterThan(0);
    expect(pool.get('agent-b')?.openTasks).toBe(0);
    // The slot is free again: the next dispatch is admitted.
    await expect(dispatch()).resolves.toMatchObject({ peerId: 'agent-b' });
  });

  it('caller abort: the executor sees the abort, slot released, ticket metered, no failure counted', async () => {
    const g = governed();
    const never = createStreamingExecutor('remote', {
      async *stream(_request, { signal }) {
        yield STREAM[0]!;
        await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      },
    });
    const { dispatch, pool } = setup({ ...g, remoteExecutor: () => never });
    const controller = new AbortController();
    const reason = new Error('user cancelled');
    const running = dispatch({ signal: controller.signal, onUpdate: () => controller.abort(reason) });
    await expect(running).rejects.toBe(reason);
    expect(g.policy.activeCount('agent-a', 'analysis')).toBe(0);
    expect(g.budget.snapshot().inFlight).toBe(0);
    expect(pool.get('agent-b')?.failureRate).toBe(0);
    expect(pool.get('agent-b')?.openTasks).toBe(0);
  });

  it('breaker: a peer failing N times leaves the pool and the next dispatch goes elsewhere', async () => {
    const pool = new PeerPool({ breaker: { failureThreshold: 2 } });
    pool.upsert('agent-b', card(), { ewmaLatencyMs: 1 });
    pool.upsert('agent-c', card(), { ewmaLatencyMs: 500 });
    const dispatcher = new Dispatcher({
      selfAgentId: 'agent-a',
      pool,
      selector: lowestLatency(),
      remoteExecutor: (peer) =>
        createStreamingExecutor('remote', {
          async *stream() {
            if (peer.id === 'agent-b') throw new Error('503');
            yield STREAM[0]!;
          },
        }),
    });
    const go = () => dispatcher.dispatch({ request: request(), task: { skillId: 'analysis' }, caller: 'x', context: ROOT });
    await expect(go()).rejects.toThrow('503');
    await expect(go()).rejects.toThrow('503');
    await expect(go()).resolves.toMatchObject({ peerId: 'agent-c' });
  });

  it('caller code does not branch: local fallback and remote peer give identical outcomes for the same stream', async () => {
    const remote = setup({ remoteExecutor: () => createStreamingExecutor('remote', replaySource(STREAM)) });
    const local = setup({ fallback: createLocalExecutor(replaySource(STREAM)) });
    local.pool.remove('agent-b');
    local.pool.remove('agent-c');
    const a = await remote.dispatch();
    const b = await local.dispatch();
    expect(a.final).toEqual(b.final);
    expect(a.updates).toEqual(b.updates);
  });
});

describe('Dispatcher edge cases', () => {
  it('a named target that is unknown (or is this agent) is NoEligiblePeerError; the selector is skipped', async () => {
    const selector = throwingSelector();
    const { dispatch } = setup({ selector });
    await expect(dispatch({ targetAgentId: 'agent-z' })).rejects.toSatisfy((error: unknown) => NoEligiblePeerError.isInstance(error));
    await expect(dispatch({ targetAgentId: 'agent-a' })).rejects.toSatisfy((error: unknown) => NoEligiblePeerError.isInstance(error));
    await expect(dispatch({ targetAgentId: 'agent-c' })).resolves.toMatchObject({ peerId: 'agent-c' });
    expect(selector.calls).toBe(0);
  });

  it('never selects its own agent id', async () => {
    const { dispatch, pool } = setup();
    pool.upsert('agent-a', card(), { ewmaLatencyMs: 0 });
    await expect(dispatch()).resolves.toMatchObject({ peerId: 'agent-b' });
  });

  it('a mid-task policy limit aborts the executor with PolicyViolationError and emits an aborted event', async () => {
    vi.useFakeTimers();
    try {
      const policy = new TaskPolicyEngine({ default: { maxDurationMs: 50 } });
      const slow = createStreamingExecutor('remote', {
        async *stream(_request, { signal }) {
          await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
        },
      });
      const { dispatch, seen } = setup({ policy, remoteExecutor: () => slow });
      const running = dispatch();
      const settled = expect(running).rejects.toSatisfy((error: unknown) => PolicyViolationError.isInstance(error));
      await vi.advanceTimersByTimeAsync(60);
      await settled;
      expect(seen.some((event) => event.type === 'aborted' && event.reason === 'maxDurationMs')).toBe(true);
      expect(policy.activeCount('agent-a', 'analysis')).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('selectorFromConfig agrees with materializeConfig of a2a-governance', async () => {
    const { materializeConfig } = await import('@a2aplane/a2a-governance');
    const { createDefaultSelectorRegistry, selectorFromConfig } = await import('../src/index.js');
    const registry = createDefaultSelectorRegistry();
    const materialized = materializeConfig(
      { routing: { default_selector: 'cheapest_under_latency', fallback: ['lowest_latency'], latency_budget_ms: 2000 } },
      { knownSelectors: registry.names() },
    );
    const selector = selectorFromConfig(materialized.routing!, registry);
    expect(selector.name).toBe('chain(cheapest_under_latency,lowest_latency)');
  });
});
