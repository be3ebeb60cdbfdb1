import type { AgentPage, AgentQuery, AgentRecord } from '../core/types.js';

/**
 * The registry's storage seam. Every implementation runs the contract suite of
 * `@a2aplane/a2a-registry/testing` (the in-memory store here, the PostgreSQL one beside it).
 * A caller can never change the store through a record: records handed in are copied, and records
 * handed out are either the caller's own copy or frozen (the in-memory and file stores share one
 * frozen object with every reader instead of cloning it per read).
 */
export interface RegistryStore {
  get(id: string): Promise<AgentRecord | undefined>;
  /** The record whose current AgentID is `agentId`, or that held it before (key history). */
  findByAgentId(agentId: string): Promise<AgentRecord | undefined>;
  findByCardUrl(cardUrl: string): Promise<AgentRecord | undefined>;
  /**
   * Writes `record` when the stored revision is `expectedRevision` (`null`: the id must be new)
   * and returns it with `revision` bumped; else rejects with `RegistryConflictError`.
   * Two records may not share a current AgentID or a card URL (also a conflict).
   */
  put(record: AgentRecord, expectedRevision: number | null): Promise<AgentRecord>;
  /** Agents matching `query`, ordered by `id`, one page at a time. */
  search(query: AgentQuery): Promise<AgentPage>;
  /** Releases connections (no-op in memory). */
  close?(): Promise<void>;
}

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** The page size a query asks for, clamped to 1..100. */
export function pageSizeOf(query: AgentQuery): number {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  return Number.isSafeInteger(limit) ? Math.min(Math.max(limit, 1), MAX_PAGE_SIZE) : DEFAULT_PAGE_SIZE;
}

/** Cursors are opaque to callers: the last id of a page, base64url. */
export function encodeCursor(id: string): string {
  return Buffer.from(id, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  return Buffer.from(cursor, 'base64url').toString('utf8');
}

/** The lower-case words a free-text search runs over: name, description, skills (names, descriptions, tags). */
export function searchableText(record: AgentRecord): string {
  const card = record.card;
  const parts = [card.name, card.description ?? ''];
  for (const skill of card.skills ?? []) parts.push(skill.id, skill.name, skill.description ?? '', ...(skill.tags ?? []));
  return parts.join(' ').toLowerCase();
}

/** The words of a free-text query (lower case, at most 16). */
export function queryWords(text: string | undefined): string[] {
  if (text === undefined) return [];
  return text
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => word !== '')
    .slice(0, 16);
}

/** Does `record` match `query` (everything but pagination)? The one definition every store follows. */
export function matchesQuery(record: AgentRecord, query: AgentQuery, text: string = searchableText(record)): boolean {
  if (!query.includeInactive && record.status !== 'active') return false;
  if (query.origin !== undefined && record.origin !== query.origin) return false;
  if (query.skill !== undefined && !record.skills.includes(query.skill)) return false;
  if (query.tag !== undefined && !record.tags.includes(query.tag)) return false;
  if (query.health !== undefined && !query.health.includes(record.health.status)) return false;
  return queryWords(query.text).every((word) => text.includes(word));
}
