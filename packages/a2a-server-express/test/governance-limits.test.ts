import { createInMemoryBudgetLedger, Governor, readTaskContext, TaskPolicyEngine } from '@a2aplane/a2a-governance';
import type { SendMessageRequest, Task } from '@a2aplane/a2a-types';
import { describe, expect, it } from 'vitest';
import { type AgentExecutor, createA2AServer, createTaskUpdater } from '../src/index.js';
import { testCard } from './helpers.js';

const send = (text = 'one two three four five'): SendMessageRequest => ({
  message: { messageId: globalThis.crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], metadata: { skillId: 'echo' } },
});

/** An executor that never looks at its signal: it reports `usage` step by step, then completes. */
function stubbornExecutor(steps: Array<{ tokens?: number; usd?: number }>, delayMs = 0): AgentExecutor {
  return {
    async execute(context, events) {
      const task = createTaskUpdater(context, events);
      task.submit();
      task.startWork('working');
      for (const step of steps) {
        if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
        events.reportUsage(step);
      }
      task.addArtifact([{ text: 'result' }], { artifactId: 'out' });
      task.complete();
    },
  };
}

function serverWith(governor: Governor, executor: AgentExecutor) {
  return createA2AServer({ card: testCard(), executor, governance: { admit: (input) => governor.admit(input), readTaskContext } });
}

async function sendAndSettle(server: ReturnType<typeof serverWith>, request = send()): Promise<Task> {
  const response = await server.handle({ method: 'SendMessage', params: request, version: '1.0' });
  if (response.kind !== 'result') throw new Error(`expected a result, got ${response.kind}`);
  const task = (response.result as { task: Task }).task;
  // Give an executor that ignores its signal time to try to complete anyway.
  await new Promise((resolve) => setTimeout(resolve, 30));
  const stored = await server.store.get({ tenant: '', taskId: task.id });
  return stored!.task;
}

const errorInfoOf = (task: Task) =>
  task.status.message?.parts.find((part) => part.data !== undefined)?.data as
    | { reason: string; metadata: Record<string, string> }
    | undefined;

describe('limits end tasks FAILED, whatever the executor does with its signal', () => {
  it('maxTokens: a 5-token task under maxTokens 1 ends FAILED with POLICY_VIOLATION (maxTokens)', async () => {
    const governor = new Governor({ selfAgentId: 'self', policy: new TaskPolicyEngine({ default: { maxTokens: 1 } }) });
    const server = serverWith(governor, stubbornExecutor([{ tokens: 5 }]));
    const task = await sendAndSettle(server);
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(errorInfoOf(task)).toMatchObject({ reason: 'POLICY_VIOLATION', metadata: { field: 'maxTokens', limit: '1', actual: '5' } });
    expect(task.artifacts).toBeUndefined();
    await server.close();
  });

  it('maxDurationMs: a task past its lifetime ends FAILED even though its executor runs on', async () => {
    const governor = new Governor({ selfAgentId: 'self', policy: new TaskPolicyEngine({ default: { maxDurationMs: 5 } }) });
    const server = serverWith(governor, stubbornExecutor([{ tokens: 1 }], 60));
    const response = await server.handle({ method: 'SendMessage', params: send(), version: '1.0' });
    const task = (response as { result: { task: Task } }).result.task;
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(errorInfoOf(task)).toMatchObject({ reason: 'POLICY_VIOLATION', metadata: { field: 'maxDurationMs' } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await server.store.get({ tenant: '', taskId: task.id }))!.task.status.state).toBe('TASK_STATE_FAILED');
    await server.close();
  });

  it('maxCostUsd: actual USD reported past the policy ends the task FAILED (maxCostUsd)', async () => {
    const governor = new Governor({ selfAgentId: 'self', policy: new TaskPolicyEngine({ default: { maxCostUsd: 0.02 } }) });
    const server = serverWith(governor, stubbornExecutor([{ usd: 0.01 }, { usd: 0.05 }]));
    const task = await sendAndSettle(server);
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(errorInfoOf(task)).toMatchObject({ reason: 'POLICY_VIOLATION', metadata: { field: 'maxCostUsd', limit: '0.02' } });
    await server.close();
  });

  it('an estimate over maxCostUsd is refused before dispatch; the executor never runs', async () => {
    let runs = 0;
    const governor = new Governor({
      selfAgentId: 'self',
      policy: new TaskPolicyEngine({ default: { maxCostUsd: 0 } }),
      estimateCost: ({ skill }) => (skill === 'echo' ? 0.01 : undefined),
    });
    const server = serverWith(governor, {
      async execute() {
        runs++;
      },
    });
    const response = await server.handle({ method: 'SendMessage', params: send(), version: '1.0' });
    expect(response.kind).toBe('error');
    expect((response as { error: { reason: string; metadata: Record<string, string> } }).error).toMatchObject({
      reason: 'POLICY_VIOLATION',
      metadata: { field: 'maxCostUsd' },
    });
    expect(runs).toBe(0);
    await server.close();
  });

  it('a budget cut mid-task: spend outgrowing the reservation with no room left ends the task FAILED (BUDGET_EXCEEDED)', async () => {
    const budget = createInMemoryBudgetLedger({ maxUsdPerMinute: 0.05 });
    const governor = new Governor({ selfAgentId: 'self', budget, estimateCost: () => 0.01 });
    const server = serverWith(governor, stubbornExecutor([{ usd: 0.01 }, { usd: 0.02 }, { usd: 0.1 }]));
    const task = await sendAndSettle(server);
    expect(task.status.state).toBe('TASK_STATE_FAILED');
    expect(errorInfoOf(task)).toMatchObject({ reason: 'BUDGET_EXCEEDED', metadata: { limit: 'usd' } });
    expect(budget.snapshot()).toMatchObject({ inFlight: 0, reserved: { usd: 0 } });
    await server.close();
  });

  it('bounded spend: $1.00/min cap, $0.01 estimated per task, 2,000 concurrent requests spend at most $1.00', async () => {
    const budget = createInMemoryBudgetLedger({ maxUsdPerMinute: 1 });
    const governor = new Governor({ selfAgentId: 'self', budget, estimateCost: () => 0.01 });
    const server = serverWith(governor, {
      async execute(context, events) {
        const task = createTaskUpdater(context, events);
        task.submit();
        // Every admitted task is still in flight when the others are admitted.
        await new Promise((resolve) => setTimeout(resolve, 5));
        events.reportUsage({ usd: 0.01, tokens: 5 });
        task.complete();
      },
    });
    const responses = await Promise.all(
      Array.from({ length: 2000 }, () => server.handle({ method: 'SendMessage', params: send(), version: '1.0' })),
    );
    const completed = responses.filter((r) => r.kind === 'result').length;
    const shed = responses.filter((r) => r.kind === 'error' && r.error.reason === 'BUDGET_EXCEEDED').length;
    for (let i = 0; i < 100 && budget.snapshot().inFlight > 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    const spent = budget.snapshot().totals.usd;
    console.info(`bounded spend: ${completed} completed, ${shed} shed, $${spent.toFixed(2)} spent of a $1.00 cap`);
    expect(completed + shed).toBe(2000);
    expect(spent).toBeLessThanOrEqual(1);
    expect(completed).toBe(100);
    await server.close();
  });
});
