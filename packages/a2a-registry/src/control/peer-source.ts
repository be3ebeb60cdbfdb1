import type { AgentCard } from '@a2aplane/a2a-types';
import type { AgentView, HealthStatus, RegistryReader } from '../core/types.js';
import { createRepeatingRound } from '../core/repeating-round.js';

/** The part of a2a-routing's `PeerPool` a peer source uses (structural: no dependency on routing). */
export interface PeerPoolLike {
  upsert(id: string, card: AgentCard): void;
  remove(id: string): void;
}

export interface RegistryPeerSourceOptions {
  /** Peers that advertise this skill id. */
  skill?: string;
  tag?: string;
  /** Health statuses admitted. Default `up` and `degraded`; pass all five to skip the prober's verdict. */
  health?: readonly HealthStatus[];
  /** How often the pool is refreshed by `start`. Default 10 000 ms. */
  intervalMs?: number;
  /** Most peers taken. Default 1000. */
  maxPeers?: number;
  /** A peer the pool refuses (e.g. `IncompatiblePeerError`) or a failed refresh. */
  onError?: (error: unknown) => void;
}

export interface RefreshResult {
  added: string[];
  updated: string[];
  removed: string[];
}

export interface RegistryPeerSource {
  /** One search; peers found are upserted (by AgentID), peers this source added and no longer found are removed. */
  refresh(): Promise<RefreshResult>;
  start(): void;
  stop(): Promise<void>;
}

/**
 * Fills a `PeerPool` from a registry search and keeps it current (decision 0073): a revoked,
 * disabled, rotated-away or unhealthy agent leaves the pool at the next refresh. Peers added by
 * hand are never removed. A failed search leaves the pool as it was.
 */
export function createRegistryPeerSource(
  reader: RegistryReader,
  pool: PeerPoolLike,
  options: RegistryPeerSourceOptions = {},
): RegistryPeerSource {
  const intervalMs = options.intervalMs ?? 10_000;
  const maxPeers = options.maxPeers ?? 1000;
  const health = options.health ?? ['up', 'degraded'];
  const owned = new Map<string, string>(); // AgentID -> updatedAt of the card upserted

  async function found(): Promise<AgentView[]> {
    const agents: AgentView[] = [];
    let cursor: string | undefined;
    do {
      const page = await reader.searchAgents({
        ...(options.skill !== undefined ? { skill: options.skill } : {}),
        ...(options.tag !== undefined ? { tag: options.tag } : {}),
        health,
        limit: 100,
        ...(cursor ? { cursor } : {}),
      });
      agents.push(...page.agents);
      cursor = page.nextCursor;
    } while (cursor !== undefined && agents.length < maxPeers);
    return agents.slice(0, maxPeers);
  }

  async function refresh(): Promise<RefreshResult> {
    const agents = await found();
    const result: RefreshResult = { added: [], updated: [], removed: [] };
    const seen = new Set<string>();
    for (const agent of agents) {
      seen.add(agent.agentId);
      const previous = owned.get(agent.agentId);
      if (previous === agent.updatedAt) continue;
      try {
        pool.upsert(agent.agentId, agent.card);
        owned.set(agent.agentId, agent.updatedAt);
        (previous === undefined ? result.added : result.updated).push(agent.agentId);
      } catch (error) {
        options.onError?.(error);
        owned.delete(agent.agentId);
      }
    }
    for (const agentId of [...owned.keys()]) {
      if (seen.has(agentId)) continue;
      pool.remove(agentId);
      owned.delete(agentId);
      result.removed.push(agentId);
    }
    return result;
  }

  const rounds = createRepeatingRound(() => refresh(), intervalMs, options.onError);

  return {
    refresh,
    start: rounds.start,
    stop: rounds.stop,
  };
}
