import type { AgentView } from '../core/types.js';

/** The AI Catalog media type of an A2A agent card entry (issue 34). */
export const A2A_AGENT_CARD_MEDIA_TYPE = 'application/a2a-agent-card+json';

/** One AI Catalog entry (decision 0071): the required fields, the searchable ones, and our health/trust block. */
export interface CatalogEntry {
  identifier: string;
  displayName: string;
  type: typeof A2A_AGENT_CARD_MEDIA_TYPE;
  url?: string;
  data?: unknown;
  description?: string;
  tags: string[];
  capabilities: string[];
  version: string;
  updatedAt: string;
  /** Registry facts no draft field carries: AgentID, status, health, tier (decision 0071). */
  'x-a2aplane': { agentId: string; status: string; health: AgentView['health']; tier: string; cardUrl: string };
}

export interface AiCatalog {
  specVersion: '1.0';
  host: { displayName: string; identifier?: string };
  entries: CatalogEntry[];
}

/** `urn:air:<agent host>:agent:<AgentID>`: domain-anchored as the draft asks, unique by key. */
export function catalogIdentifier(agent: AgentView): string {
  return `urn:air:${new URL(agent.origin).hostname}:agent:${agent.agentId}`;
}

/** The entry for `agent`; `inline` puts the signed card in `data`, else `url` points at it. */
export function toCatalogEntry(agent: AgentView, options: { baseUrl: string; inline: boolean }): CatalogEntry {
  const cardLocation = `${options.baseUrl}/agents/${agent.agentId}/card`;
  return {
    identifier: catalogIdentifier(agent),
    displayName: agent.card.name,
    type: A2A_AGENT_CARD_MEDIA_TYPE,
    ...(options.inline ? { data: JSON.parse(agent.cardText) as unknown } : { url: cardLocation }),
    ...(agent.card.description ? { description: agent.card.description } : {}),
    tags: agent.tags,
    capabilities: agent.skills,
    version: agent.card.version,
    updatedAt: agent.updatedAt,
    'x-a2aplane': { agentId: agent.agentId, status: agent.status, health: agent.health, tier: agent.tier, cardUrl: agent.cardUrl },
  };
}
