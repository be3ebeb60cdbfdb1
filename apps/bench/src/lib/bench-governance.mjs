// The governance the governed bench servers run: a budget ledger with caps far above the load, the
// recursion policy, a task policy (skill allowlist, generous concurrency) and lineage spend. One
// definition for the bench servers (servers/bench-governor.ts) and for the drivers that measure any
// checkout's build (verified-server-micro.ts, verified-server-count.mjs), which pass the
// a2a-governance module of the build they load. Plain JavaScript, so that plain node loads it too.

/**
 * The server's `governance` option over a fresh bench Governor built from `g`'s classes.
 * @param {typeof import('@a2aplane/a2a-governance')} g
 * @param {import('@a2aplane/a2a-governance').GovernanceHooks} [hooks] stage hooks (a traced server)
 */
export function benchGovernanceOf(g, hooks) {
  const governor = new g.Governor({
    ...(hooks ? { hooks } : {}),
    selfAgentId: 'bench-ours',
    budget: g.createInMemoryBudgetLedger({ maxUsdPerMinute: 1e9, maxTokensPerMinute: 1e12, maxTasksPerMinute: 1e9 }),
    allowUnestimatedUsd: true,
    recursion: new g.RecursionPolicy({ maxCallDepth: 8 }),
    policy: new g.TaskPolicyEngine({ default: { allowedSkills: ['echo'], maxConcurrency: 100_000 } }),
    spend: new g.SpendAggregator(),
  });
  return { admit: (input) => governor.admit(input), readTaskContext: g.readTaskContext };
}
