// The governance the governed bench servers run: a budget ledger with caps far above the load, the
// recursion policy, a task policy (skill allowlist, generous concurrency) and lineage spend.
import {
  createInMemoryBudgetLedger,
  Governor,
  RecursionPolicy,
  readTaskContext,
  SpendAggregator,
  TaskPolicyEngine,
} from '@a2aplane/a2a-governance';
import type { A2AServerOptions } from '@a2aplane/a2a-server-express';

/** The server's `governance` option over a fresh bench Governor. */
export function benchGovernance(): NonNullable<A2AServerOptions['governance']> {
  const governor = new Governor({
    selfAgentId: 'bench-ours',
    // A USD cap needs an estimate to reserve against (issue 33): a cent per task, far under the cap.
    estimateCost: () => 0.01,
    budget: createInMemoryBudgetLedger({ maxUsdPerMinute: 1e9, maxTokensPerMinute: 1e12, maxTasksPerMinute: 1e9 }),
    recursion: new RecursionPolicy({ maxCallDepth: 8 }),
    policy: new TaskPolicyEngine({ default: { allowedSkills: ['echo'], maxConcurrency: 100_000 } }),
    spend: new SpendAggregator(),
  });
  return { admit: (input) => governor.admit(input), readTaskContext };
}
