import type { AgentCard } from '@a2aplane/a2a-types';

/** A public Ed25519 JWK as the registry keeps it (never a private `d`). */
export interface RegistryJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
}

/** `active` agents are found and trusted; `disabled` ones are hidden until enabled; `revoked` is final for that key. */
export type AgentStatus = 'active' | 'disabled' | 'revoked';

/** The prober's verdict on an agent (decision 0072). */
export type HealthStatus = 'unknown' | 'up' | 'degraded' | 'down' | 'non-conformant';

export interface AgentHealth {
  status: HealthStatus;
  /** Why the agent is not `up` (empty when it is). */
  reason: string;
  /** Milliseconds of the last probe's exchange (card fetch + GetTask), when it answered. */
  latencyMs?: number;
  /** ISO time of the last probe. */
  checkedAt?: string;
  /** ISO time of the last probe that found the agent `up`. */
  lastSuccessAt?: string;
  /** Probes that did not find the agent `up`, in a row. */
  consecutiveFailures: number;
}

/** One former identity of an enrolled agent (a rotated or revoked key). */
export interface KeyHistoryEntry {
  agentId: string;
  keys: RegistryJwk[];
  from: string;
  until: string;
  reason: 'rotated' | 'revoked';
}

/** What the registry knows about one agent. `id` is stable across key rotations; `agentId` is the current key's. */
export interface AgentRecord {
  id: string;
  agentId: string;
  /** Where the agent serves its card; its origin is the enrolled origin. */
  cardUrl: string;
  origin: string;
  /** The signed card exactly as enrolled (the bytes its signature covers). */
  cardText: string;
  card: AgentCard;
  keys: RegistryJwk[];
  /** ISO time the current key was enrolled (a rotation's `from`). */
  keySince: string;
  tier: string;
  owner: string;
  skills: string[];
  tags: string[];
  status: AgentStatus;
  statusReason?: string;
  enrolledAt: string;
  updatedAt: string;
  keyHistory: KeyHistoryEntry[];
  health: AgentHealth;
  /** Bumped by every write; stores compare it to refuse lost updates. */
  revision: number;
}

/** A search over enrolled agents (ARD `POST /search`, decision 0071). */
export interface AgentQuery {
  /** An exact skill id. */
  skill?: string;
  /** An exact skill tag. */
  tag?: string;
  /** Words that must all appear in the name, description or skills (case-insensitive). */
  text?: string;
  /** Only agents with one of these health statuses. */
  health?: readonly HealthStatus[];
  /** Include disabled and revoked agents (operator views). Default false. */
  includeInactive?: boolean;
  /** Only the agent enrolled at this origin. */
  origin?: string;
  /** Page size, 1..100. Default 20. */
  limit?: number;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
}

export interface AgentPage {
  agents: AgentRecord[];
  nextCursor?: string;
}

/** What readers see of an agent: the record without its storage revision. */
export type AgentView = Omit<AgentRecord, 'revision'>;

export interface AgentViewPage {
  agents: AgentView[];
  nextCursor?: string;
}

/**
 * The read side of a registry, in process (`createRegistry`) or over HTTP (`createRegistryHttpReader`):
 * what the key resolver, the card verifier and the peer source need.
 */
export interface RegistryReader {
  /** The agent that holds or held `agentId` (its record says whether that key is still current). */
  lookupAgent(agentId: string, options?: { signal?: AbortSignal }): Promise<AgentView | undefined>;
  /** The agent enrolled at `origin` (scheme://host:port), whatever its status: a revoked one must still be refused. */
  findByOrigin(origin: string, options?: { signal?: AbortSignal }): Promise<AgentView | undefined>;
  searchAgents(query: AgentQuery, options?: { signal?: AbortSignal }): Promise<AgentViewPage>;
}
