import { describe, expect, it } from 'vitest';
import {
  createCallAuthorizer,
  createInMemoryBudgetLedger,
  createRootContext,
  type GovernanceStageFinish,
  type GovernanceStageStart,
  Governor,
  RecursionPolicy,
  TaskPolicyEngine,
} from '../src/index.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

function recorder() {
  const starts: GovernanceStageStart[] = [];
  const finishes: GovernanceStageFinish[] = [];
  return {
    starts,
    finishes,
    hooks: { onStageStart: (s: GovernanceStageStart) => starts.push(s), onStageFinish: (f: GovernanceStageFinish) => finishes.push(f) },
  };
}

describe('Governor stage hooks (start/finish per stage, one dispatch id per admit)', () => {
  it('reports every stage of an admitted task in order, with one dispatch id, decision and timings', async () => {
    const { starts, finishes, hooks } = recorder();
    const governor = new Governor({
      selfAgentId: 'B',
      authorize: createCallAuthorizer({ identity: { isAllowed: () => true }, requireVerifiedCaller: false }),
      budget: createInMemoryBudgetLedger({ maxTasksPerMinute: 10 }),
      recursion: new RecursionPolicy(),
      policy: new TaskPolicyEngine(),
      hooks,
    });
    const task = await governor.admit({ caller: 'A', skill: 's', incoming: createRootContext({ rootAgentId: 'A', traceId: TRACE }) });
    await task.finish({});
    expect(starts.map((s) => s.stage)).toEqual(['authorize', 'budget', 'recursion', 'policy']);
    expect(finishes.map((f) => `${f.stage}:${f.decision}`)).toEqual([
      'authorize:accepted',
      'budget:accepted',
      'recursion:accepted',
      'policy:accepted',
    ]);
    expect(new Set([...starts, ...finishes].map((s) => s.dispatchId))).toEqual(new Set([task.dispatchId]));
    expect(task.dispatchId).toMatch(/^[0-9a-f-]{36}$/);
    for (const f of finishes) {
      expect(f).toMatchObject({ caller: 'A', skill: 's', traceId: TRACE });
      expect(f.endTime).toBeGreaterThanOrEqual(f.startTime);
      expect(f.durationMs).toBe(f.endTime - f.startTime);
    }
    const next = await governor.admit({ caller: 'A', skill: 's' });
    expect(next.dispatchId).not.toBe(task.dispatchId);
  });

  it('a rejection finishes its stage with the reason, and later stages never start', async () => {
    const { starts, finishes, hooks } = recorder();
    const governor = new Governor({
      selfAgentId: 'B',
      budget: createInMemoryBudgetLedger({ maxTasksPerMinute: 0 }),
      policy: new TaskPolicyEngine(),
      hooks,
    });
    await expect(governor.admit({ caller: 'A', skill: 's' })).rejects.toMatchObject({ reason: 'BUDGET_EXCEEDED' });
    expect(starts.map((s) => s.stage)).toEqual(['budget']);
    expect(finishes).toEqual([expect.objectContaining({ stage: 'budget', decision: 'rejected', reason: 'tasks' })]);
  });

  it('a gate that throws finishes as error; a throwing hook changes nothing', async () => {
    const { finishes, hooks } = recorder();
    const broken = { ...createRootContext({ rootAgentId: 'A' }), visitedAgents: undefined as unknown as string[] };
    const governor = new Governor({ selfAgentId: 'B', recursion: new RecursionPolicy(), hooks });
    await expect(governor.admit({ caller: 'A', skill: 's', incoming: broken })).rejects.toThrow(TypeError);
    expect(finishes).toEqual([expect.objectContaining({ stage: 'recursion', decision: 'error', reason: 'error' })]);

    const throwing = new Governor({
      selfAgentId: 'B',
      policy: new TaskPolicyEngine(),
      hooks: {
        onStageStart: () => {
          throw new Error('observer bug');
        },
        onStageFinish: () => {
          throw new Error('observer bug');
        },
      },
    });
    const task = await throwing.admit({ caller: 'A', skill: 's' });
    await task.finish({});
  });

  it('hooks whose enabled() says false are not called for that dispatch; a throwing enabled() does not silence them', async () => {
    const { starts, finishes, hooks } = recorder();
    let on = false;
    const governor = new Governor({ selfAgentId: 'B', policy: new TaskPolicyEngine(), hooks: { ...hooks, enabled: () => on } });
    const quiet = await governor.admit({ caller: 'A', skill: 's' });
    await quiet.finish({});
    expect(quiet.dispatchId).toBeUndefined();
    expect(starts).toHaveLength(0);
    expect(finishes).toHaveLength(0);
    on = true;
    const heard = await governor.admit({ caller: 'A', skill: 's' });
    await heard.finish({});
    expect(heard.dispatchId).toEqual(expect.any(String));
    expect(starts.map((s) => s.stage)).toEqual(['policy']);

    const broken = new Governor({
      selfAgentId: 'B',
      policy: new TaskPolicyEngine(),
      hooks: {
        ...hooks,
        enabled: () => {
          throw new Error('observer bug');
        },
      },
    });
    await (await broken.admit({ caller: 'A', skill: 's' })).finish({});
    expect(starts.map((s) => s.stage)).toEqual(['policy', 'policy']);
    expect(() => new Governor({ selfAgentId: 'B', hooks: { enabled: true as never } })).toThrow(/expected hooks.enabled to be a function/);
  });

  it('without hooks there is no dispatch id; bad hooks are TypeErrors', async () => {
    const task = await new Governor({ selfAgentId: 'B' }).admit({ caller: 'A', skill: 's' });
    expect(task.dispatchId).toBeUndefined();
    expect(() => new Governor({ selfAgentId: 'B', hooks: { onStageStart: 'log' as never } })).toThrow(
      /expected hooks.onStageStart to be a function/,
    );
  });
});

describe('Governor routes (the outbound pipeline of the Dispatcher)', () => {
  const peers = [{ id: 'P1' }, { id: 'P2' }];

  it('drops visited candidates, lets the selector pick, and builds the child context for the pick', async () => {
    const { starts, hooks } = recorder();
    const governor = new Governor({ selfAgentId: 'A', recursion: new RecursionPolicy(), hooks });
    const context = { ...createRootContext({ rootAgentId: 'A', traceId: TRACE }), visitedAgents: ['A', 'P1'] };
    const seen: string[][] = [];
    const task = await governor.admit({
      caller: 'A',
      skill: 's',
      incoming: context,
      parentTaskId: 't1',
      route: {
        candidates: peers,
        select: (eligible) => {
          seen.push(eligible.map((p) => p.id));
          return eligible[0];
        },
      },
    });
    expect(seen).toEqual([['P2']]);
    expect(task.receiver).toEqual({ id: 'P2' });
    expect(task.context).toMatchObject({ traceId: TRACE, depth: 1, parentTaskId: 't1', visitedAgents: ['A', 'P1', 'P2'] });
    expect(starts.map((s) => s.stage)).toEqual(['recursion', 'selector']);
  });

  it('refuses with the recursion error when every candidate was visited, and a selector refusal is a selector rejection', async () => {
    const budget = createInMemoryBudgetLedger({ maxUsdPerMinute: 1 });
    const governor = new Governor({ selfAgentId: 'A', budget, recursion: new RecursionPolicy(), allowUnestimatedUsd: true });
    const visited = { ...createRootContext({ rootAgentId: 'A' }), visitedAgents: ['A', 'P1', 'P2'] };
    await expect(
      governor.admit({
        caller: 'A',
        skill: 's',
        incoming: visited,
        estimatedCostUsd: 0.5,
        route: { candidates: peers, select: (e) => e[0] },
      }),
    ).rejects.toMatchObject({ reason: 'RECURSION_LIMIT', metadata: { limit: 'revisit', agentId: 'P1' } });
    const selectorError = new (await import('@a2aplane/a2a-types')).UnsupportedOperationError({ message: 'no peer' });
    await expect(
      governor.admit({
        caller: 'A',
        skill: 's',
        incoming: createRootContext({ rootAgentId: 'A' }),
        estimatedCostUsd: 0.5,
        route: {
          candidates: peers,
          select: () => {
            throw selectorError;
          },
        },
      }),
    ).rejects.toBe(selectorError);
    expect(budget.snapshot().inFlight).toBe(0);
  });
});

describe('instrumentation inputs (decision record 0027)', () => {
  it('starts a fresh root context on the given trace id, and ignores it for an incoming lineage', async () => {
    const governor = new Governor({ selfAgentId: 'B' });
    const root = await governor.admit({ caller: 'A', skill: 's', traceId: TRACE });
    expect(root.context).toMatchObject({ traceId: TRACE, depth: 0, rootAgentId: 'B' });
    const other = '0af7651916cd43dd8448eb211c80319c';
    const child = await governor.admit({
      caller: 'A',
      skill: 's',
      traceId: other,
      incoming: createRootContext({ rootAgentId: 'A', traceId: TRACE }),
    });
    expect(child.context.traceId).toBe(TRACE);
    await expect(governor.admit({ caller: 'A', skill: 's', traceId: 'not-a-trace' })).rejects.toThrow(TypeError);
  });

  it('stage hooks carry the estimated cost (given or from estimateCost)', async () => {
    const { starts, finishes, hooks } = recorder();
    const governor = new Governor({
      selfAgentId: 'B',
      budget: createInMemoryBudgetLedger({ maxTasksPerMinute: 10 }),
      estimateCost: () => 0.25,
      hooks,
    });
    await governor.admit({ caller: 'A', skill: 's' });
    expect(starts[0]?.estimatedCostUsd).toBe(0.25);
    expect(finishes[0]?.estimatedCostUsd).toBe(0.25);
  });
});
