import { describe, expect, it } from 'vitest';
import { type AgentSummary, createControlPlane } from '../src/control-plane.js';
import { countNodes } from '../src/delegation-tree.js';
import { runBoundedRecursion } from '../src/scenarios/bounded-recursion.js';
import { HANDOFF_BODY_LIMIT_BYTES, runConstantSizeHandOff } from '../src/scenarios/constant-size-handoff.js';
import { runRemoteEqualsLocal } from '../src/scenarios/remote-equals-local.js';

/** Every agent has its own key, AgentID and signed card, verified on discovery, on loopback. */
function expectOwnSignedCards(agents: AgentSummary[], count: number): void {
  expect(agents).toHaveLength(count);
  expect(new Set(agents.map((agent) => agent.agentId)).size).toBe(count);
  expect(new Set(agents.map((agent) => agent.url)).size).toBe(count);
  for (const agent of agents) {
    expect(agent.card).toBe('valid');
    expect(agent.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(agent.agentId).toMatch(/^[0-9a-f]{64}$/);
  }
}

// ADR-159's three acceptance tests, on real servers over HTTP on 127.0.0.1.
describe('ADR-159 acceptance', () => {
  it('1. remote ≡ local: same caller view and same full task records (history, metadata, artifacts, event log, final state), cancel included', async () => {
    const result = await runRemoteEqualsLocal(await createControlPlane());
    expectOwnSignedCards(result.agents, 1);
    expect(result.cases.map((c) => c.name)).toEqual(['completed task with two artifacts', 'failed task', 'caller cancels mid-task']);
    for (const item of result.cases) expect(item.remote, item.name).toEqual(item.local);
    const recordOf = (i: number) =>
      result.cases[i]!.local.record as {
        status: { state: string };
        history: Array<{ metadata?: Record<string, unknown> }>;
        artifacts?: unknown[];
      };
    // The records are whole: history with the lineage metadata each side received, artifacts, final state.
    expect(recordOf(0).status.state).toBe('TASK_STATE_COMPLETED');
    expect(recordOf(0).artifacts).toHaveLength(2);
    expect(recordOf(0).history[0]?.metadata).toMatchObject({
      skillId: 'work',
      ruvector: { context: { trace_id: '<trace_id#1>', root_agent_id: 'demo-caller' } },
    });
    expect(recordOf(1).status.state).toBe('TASK_STATE_FAILED');
    // A caller that aborts mid-task cancels the task on both sides: no divergent cancellation semantics.
    expect(recordOf(2).status.state).toBe('TASK_STATE_CANCELED');
    expect(result.cases[2]!.local.log.at(-1)).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_CANCELED' } } });
    expect(result.cases[0]!.local.states).toEqual([
      'TASK_STATE_SUBMITTED',
      'TASK_STATE_WORKING',
      'artifact:summary',
      'artifact:stats',
      'TASK_STATE_COMPLETED',
    ]);
    expect(result.cases[1]!.local.states.at(-1)).toBe('TASK_STATE_FAILED');
    expect(result.cases[2]!.local.error).toBe('AbortError');
    // The remote worker ran each case for a request the demo signed, verified as the demo's AgentID.
    expect(result.signedCalls).toEqual({ requests: 3, verified: 3, betweenAgents: 0 });
    expect(result.passed).toBe(true);
  });

  it('2. constant-size memory hand-off: 1k to 1M vectors, request body ≤ 2 KiB and flat, payload resolved and verified', async () => {
    const result = await runConstantSizeHandOff(await createControlPlane(), { dim: 4 });
    expectOwnSignedCards(result.agents, 2);
    expect(result.rows.map((row) => row.vectors)).toEqual([1_000, 10_000, 100_000, 1_000_000]);
    const bodySizes = new Set(result.rows.map((row) => row.requestBodyBytes));
    expect(bodySizes.size).toBe(1);
    expect(result.rows[0]!.requestBodyBytes).toBeLessThanOrEqual(HANDOFF_BODY_LIMIT_BYTES);
    expect(result.rows[3]!.payloadBytes).toBeGreaterThan(1_000_000 * 4 * 4);
    for (const row of result.rows) {
      expect(row.resolvedCount).toBe(row.vectors);
      expect(row.checksumMatches).toBe(true);
    }
    // Each hand-off reached B signed by A and verified as A's AgentID; the demo's requests to A as the demo's.
    expect(result.signedCalls).toEqual({ requests: 8, verified: 8, betweenAgents: 4 });
    expect(result.passed).toBe(true);
  }, 180_000);

  it('3. bounded cost under recursion: spend per trace ≤ maxUsdPerMinute, depth past maxCallDepth and A→B→C→A rejected', async () => {
    const result = await runBoundedRecursion(await createControlPlane(), await createControlPlane());
    expectOwnSignedCards(result.agents, 15);
    expect(result.levels).toBe(10);
    expect(result.attemptedTasks).toBe(1023);
    expect(result.maxUsdPerMinute).toBe(1);
    expect(result.maxCallDepth).toBe(8);
    expect(result.spendUsd).toBeLessThanOrEqual(result.maxUsdPerMinute);
    expect(result.spendUsd).toBeGreaterThan(0.5); // the tree really spent up to the cap
    expect(result.rejectedByReason.BUDGET_EXCEEDED ?? 0).toBeGreaterThan(0);
    expect(result.rejectedByReason.RECURSION_LIMIT ?? 0).toBeGreaterThan(0);
    expect(result.deepestDepth).toBe(8);
    expect(result.depthLimitHeld).toBe(true);
    expect(countNodes(result.tree).dispatched).toBe(result.tasksInTrace);
    expect(result.cycle.path).toEqual(['A', 'B', 'C', 'A (rejected)']);
    expect(result.cycle.rejectedWith).toBe('RECURSION_LIMIT');
    expect(result.cycle.callsToA).toBe(1);
    expect(result.verifiedCards).toBe(15);
    // Every delegation reached its callee signed by the delegating agent, verified as its AgentID;
    // only the two root calls (the tree's and the cycle's) came from the demo itself.
    expect(result.signedCalls.verified).toBe(result.signedCalls.requests);
    expect(result.signedCalls.betweenAgents).toBe(result.signedCalls.requests - 2);
    expect(result.signedCalls.betweenAgents).toBe(result.tasksInTrace - 1 + 2);
    expect(result.passed).toBe(true);
  }, 120_000);
});
