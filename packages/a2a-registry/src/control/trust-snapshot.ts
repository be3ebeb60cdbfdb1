import type { RegistryReader } from '../core/types.js';

/** The operator config's trust block as the registry knows it: `trust.allowlist` and `trust.tiers`. */
export interface RegistryTrustSnapshot {
  /** Every active agent's current AgentID. */
  allowlist: string[];
  /** AgentID -> tier 0..3, for agents enrolled with tier `0`..`3` (or `tier:0`..`tier:3`). */
  tiers: Record<string, 0 | 1 | 2 | 3>;
}

const TIER = /^(?:tier:)?([0-3])$/;

/**
 * Reads the allowlist and tiers for `createCallAuthorizer({ identity, tiers })` of a2a-governance
 * (decision 0073): a snapshot, so rules by tier keep their static shape; take a new one to follow
 * enrollments and revocations (or use `createRegistryTrust().identity`, which follows them live).
 */
export async function readRegistryTrustSnapshot(
  reader: RegistryReader,
  options: { maxAgents?: number } = {},
): Promise<RegistryTrustSnapshot> {
  const maxAgents = options.maxAgents ?? 100_000;
  const snapshot: RegistryTrustSnapshot = { allowlist: [], tiers: {} };
  let cursor: string | undefined;
  do {
    const page = await reader.searchAgents({ limit: 100, ...(cursor ? { cursor } : {}) });
    for (const agent of page.agents) {
      snapshot.allowlist.push(agent.agentId);
      const tier = TIER.exec(agent.tier)?.[1];
      if (tier !== undefined) snapshot.tiers[agent.agentId] = Number(tier) as 0 | 1 | 2 | 3;
    }
    cursor = page.nextCursor;
  } while (cursor !== undefined && snapshot.allowlist.length < maxAgents);
  return snapshot;
}
