import { type AgentView, createRegistryHttpReader, type RegistryReader } from '@a2aplane/a2a-registry';

/** What the console shows of a registry-listed agent (not its whole record: no keys, no card text). */
export interface RegistryAgent {
  agentId: string;
  name: string;
  description: string;
  /** The enrolled origin; the agent view opens it. */
  origin: string;
  cardUrl: string;
  status: string;
  /** The prober's verdict: `up`, `degraded`, `down`, `non-conformant` or `unknown`, and why. */
  health: { status: string; reason: string; latencyMs?: number; checkedAt?: string };
  tier: string;
  skills: string[];
}

export interface RegistryView {
  readonly url: string;
  /** Agents the registry lists (`GET /agents`), by words and skill; at most `limit` (1..100). */
  list(query: { text?: string; skill?: string; limit?: number }): Promise<RegistryAgent[]>;
  /** Whether an active agent is enrolled at `origin` (the relay may reach it); cached a few seconds, false when the registry cannot be read. */
  isListedOrigin(origin: string): Promise<boolean>;
}

export interface RegistryViewOptions {
  url: string;
  /** For tests; default the registry's HTTP reader on `url`. */
  reader?: RegistryReader;
  /** How long a listed-origin answer is kept, in ms. Default 5000. */
  cacheMs?: number;
}

const MAX_CACHED_ORIGINS = 1000;

function viewOf(agent: AgentView): RegistryAgent {
  const health: RegistryAgent['health'] = { status: agent.health.status, reason: agent.health.reason };
  if (agent.health.latencyMs !== undefined) health.latencyMs = agent.health.latencyMs;
  if (agent.health.checkedAt !== undefined) health.checkedAt = agent.health.checkedAt;
  return {
    agentId: agent.agentId,
    name: agent.card.name,
    description: agent.card.description,
    origin: agent.origin,
    cardUrl: agent.cardUrl,
    status: agent.status,
    health,
    tier: agent.tier,
    skills: agent.skills,
  };
}

/**
 * The registry the console was started with (`--registry URL`): its agents with their health and
 * conformance, and the relay's check that an origin is one of them. The URL comes from the
 * operator's command line, never from a page.
 */
export function createRegistryView(options: RegistryViewOptions): RegistryView {
  const reader = options.reader ?? createRegistryHttpReader({ baseUrl: options.url });
  const cacheMs = options.cacheMs ?? 5000;
  const listed = new Map<string, { listed: boolean; until: number }>();
  return {
    url: options.url,
    async list(query) {
      const limit = Math.min(100, Math.max(1, query.limit ?? 100));
      const page = await reader.searchAgents({
        limit,
        ...(query.text ? { text: query.text } : {}),
        ...(query.skill ? { skill: query.skill } : {}),
      });
      return page.agents.map(viewOf);
    },
    async isListedOrigin(origin) {
      const now = Date.now();
      const cached = listed.get(origin);
      if (cached !== undefined && cached.until > now) return cached.listed;
      let answer: boolean;
      try {
        answer = (await reader.findByOrigin(origin))?.status === 'active';
      } catch {
        return false;
      }
      if (listed.size >= MAX_CACHED_ORIGINS) listed.clear();
      listed.set(origin, { listed: answer, until: now + cacheMs });
      return answer;
    },
  };
}
