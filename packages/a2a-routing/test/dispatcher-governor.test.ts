import {
  createInMemoryBudgetLedger,
  createRootContext,
  type GovernanceStageFinish,
  Governor,
  RecursionPolicy,
  type TaskContext,
  TaskPolicyEngine,
} from '@a2aplane/a2a-governance';
import { describe, expect, it, vi } from 'vitest';
import {
  Dispatcher,
  type DispatcherOptions,
  type ExecutionOutcome,
  type Executor,
  lowestLatency,
  PeerPool,
  type PeerSelector,
} from '../src/index.js';
import { card, request } from './fixtures.js';

const OK: ExecutionOutcome = {
  final: { task: { id: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } },
  updates: [],
  usage: { usd: 0.01, tokens: 5 },
};

function setup(overrides: Partial<DispatcherOptions> = {}) {
  const pool = new PeerPool();
  pool.upsert('agent-b', card(), { ewmaLatencyMs: 100 });
  const execute = vi.fn(async (): Promise<ExecutionOutcome> => OK);
  const remoteExecutor = (): Executor => ({ kind: 'remote', execute });
  const dispatcher = new Dispatcher({ selfAgentId: 'agent-a', pool, selector: lowestLatency(), remoteExecutor, ...overrides });
  return { dispatcher, execute, pool };
}

const dispatchWith = (dispatcher: Dispatcher, context: TaskContext, estimatedCostUsd: number) =>
  dispatcher.dispatch({ request: request(), task: { skillId: 'analysis' }, caller: 'agent-a', context, estimatedCostUsd });

describe('Dispatcher runs the Governor: a throw at any stage gives every resource back (issue 15.3)', () => {
  it('a malformed context that makes the recursion check throw leaves nothing reserved ($1/min cap, 3 x $0.30)', async () => {
    const budget = createInMemoryBudgetLedger({ maxUsdPerMinute: 1 });
    const { dispatcher, execute } = setup({ budget, allowUnestimatedUsd: true, recursion: new RecursionPolicy() });
    const malformed = { ...createRootContext({ rootAgentId: 'agent-a' }), visitedAgents: undefined as unknown as string[] };
    for (let i = 0; i < 3; i++) await expect(dispatchWith(dispatcher, malformed, 0.3)).rejects.toThrow(TypeError);
    expect(budget.snapshot().reserved.usd).toBe(0);
    expect(budget.snapshot().inFlight).toBe(0);
    // Before the fix $0.90 stayed reserved and this $0.90 task was refused with BUDGET_EXCEEDED.
    await expect(dispatchWith(dispatcher, createRootContext({ rootAgentId: 'agent-a' }), 0.9)).resolves.toMatchObject({
      peerId: 'agent-b',
    });
    expect(execute).toHaveBeenCalledTimes(1);
  });

  it('a selector that throws gives back the ticket; a policy slot is given back when the executor factory throws', async () => {
    const budget = createInMemoryBudgetLedger({ maxUsdPerMinute: 1 });
    const policy = new TaskPolicyEngine({ default: { maxConcurrency: 1 } });
    const broken: PeerSelector = {
      name: 'broken',
      select: () => {
        throw new Error('selector bug');
      },
    };
    const { dispatcher } = setup({ budget, allowUnestimatedUsd: true, policy, selector: broken });
    await expect(dispatchWith(dispatcher, createRootContext({ rootAgentId: 'agent-a' }), 0.5)).rejects.toThrow('selector bug');
    expect(budget.snapshot().reserved.usd).toBe(0);

    const failing = setup({
      budget,
      policy,
      allowUnestimatedUsd: true,
      remoteExecutor: () => {
        throw new Error('factory bug');
      },
    });
    await expect(dispatchWith(failing.dispatcher, createRootContext({ rootAgentId: 'agent-a' }), 0.5)).rejects.toThrow('factory bug');
    expect(policy.activeCount('agent-a', 'analysis')).toBe(0);
    expect(budget.snapshot().inFlight).toBe(0);
  });

  it('takes a Governor (the same object a server runs) and reports its stages to the hooks under one dispatch id', async () => {
    const finishes: GovernanceStageFinish[] = [];
    const governor = new Governor({
      selfAgentId: 'agent-a',
      budget: createInMemoryBudgetLedger({ maxTasksPerMinute: 10 }),
      recursion: new RecursionPolicy(),
      policy: new TaskPolicyEngine(),
      hooks: { onStageFinish: (stage) => finishes.push(stage) },
    });
    const { dispatcher } = setup({ governor });
    await dispatchWith(dispatcher, createRootContext({ rootAgentId: 'agent-a' }), 0.1);
    expect(finishes.map((f) => `${f.stage}:${f.decision}`)).toEqual([
      'budget:accepted',
      'recursion:accepted',
      'selector:accepted',
      'policy:accepted',
    ]);
    expect(new Set(finishes.map((f) => f.dispatchId)).size).toBe(1);
  });

  it('refuses a half-plugged configuration: gates beside a governor, or the governor of another agent', () => {
    const governor = new Governor({ selfAgentId: 'agent-a' });
    expect(() => setup({ governor, recursion: new RecursionPolicy() })).toThrow(
      /expected the gates on the governor, got recursion beside it/,
    );
    expect(() => setup({ governor: new Governor({ selfAgentId: 'agent-z' }) })).toThrow(/expected the governor of agent-a/);
  });
});
