import {
  childContext,
  createInMemoryBudgetLedger,
  createRootContext,
  createGovernor,
  createRecursionPolicy,
  createSpendAggregator,
  createTaskPolicyEngine,
} from '@a2aplane/a2a-governance';
import { Bench } from 'tinybench';
import { num, passFail, table } from '../lib/format.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

/** ADR-159's target for every governance decision path (docs/governance.md, "Cost of the gates"). */
const GOAL_OPS = 1_000_000;
/** Operations per timed call, so timer overhead does not dominate. */
const BATCH = 1000;
const CAPS = { maxUsdPerMinute: 1e12, maxTokensPerMinute: 1e15, maxTasksPerMinute: 1e12 };

function cases(): Record<string, () => unknown> {
  const capped = createInMemoryBudgetLedger(CAPS);
  const shed = createInMemoryBudgetLedger({ maxTasksPerMinute: 1 });
  void shed.acquire({});
  const policy = createTaskPolicyEngine({ default: { allowedSkills: ['echo'], maxConcurrency: 1_000_000 } });
  const governor = createGovernor({
    selfAgentId: 'agent-self',
    estimateCost: () => 0.001,
    budget: createInMemoryBudgetLedger(CAPS),
    recursion: createRecursionPolicy(),
    policy: createTaskPolicyEngine({ default: { allowedSkills: ['echo'], maxConcurrency: 1_000_000 } }),
    spend: createSpendAggregator(),
  });
  const root = createRootContext({ rootAgentId: 'agent-0' });
  const incoming = childContext(childContext(root, { parentTaskId: 't-1', receivingAgentId: 'agent-1' }), {
    parentTaskId: 't-2',
    receivingAgentId: 'agent-2',
  });
  return {
    'BudgetLedger acquire + meter (capped, under the limit)': async () => {
      for (let i = 0; i < BATCH; i++) await capped.meter(await capped.acquire({ estimatedUsd: 0.001 }), { usd: 0.001, tokens: 10 });
    },
    'BudgetLedger acquire at the limit (shed)': async () => {
      for (let i = 0; i < BATCH; i++) await shed.acquire({}).catch(() => undefined);
    },
    'TaskPolicyEngine admit + release': () => {
      for (let i = 0; i < BATCH; i++) {
        const result = policy.admit({ caller: 'caller-1', skill: 'echo' });
        if (result.ok) result.admission.release();
      }
    },
    'Governor admit + finish (budget, recursion, policy, lineage)': async () => {
      for (let i = 0; i < BATCH; i++) {
        const task = await governor.admit({ caller: 'caller-1', skill: 'echo', incoming, parentTaskId: 't-3' });
        await task.finish({ usd: 0.001, tokens: 10 });
      }
    },
  };
}

/** Decisions per second of the governance paths, in process, with tinybench. */
export async function runGovernance(options: RunOptions): Promise<SuiteResult> {
  const list = cases();
  const bench = new Bench({ time: options.quick ? 250 : 1000, warmupTime: options.quick ? 50 : 200 });
  for (const [name, fn] of Object.entries(list)) bench.add(name, fn);
  await bench.run();
  const rows = bench.tasks.map(({ name, result }) => {
    if (!result || result.error) throw new Error(`${name}: ${result?.error?.message ?? 'no result'}`);
    return { name, opsPerSecond: (BATCH * 1000) / result.latency.mean, rme: result.latency.rme };
  });
  const markdown = [
    `tinybench, ${options.quick ? 250 : 1000} ms per case, ${BATCH} operations per timed call. Goal (ADR-159): every governance path >= ${num(GOAL_OPS)} decisions/s.`,
    '',
    table(
      ['operation', 'ops/s', '± %', 'goal'],
      rows.map((r) => [r.name, num(r.opsPerSecond), r.rme.toFixed(1), `**${passFail(r.opsPerSecond >= GOAL_OPS)}**`]),
    ),
  ].join('\n');
  return { markdown, data: rows };
}
