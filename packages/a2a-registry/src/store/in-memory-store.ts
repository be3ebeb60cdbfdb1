import { RegistryConflictError } from '../core/errors.js';
import type { AgentPage, AgentQuery, AgentRecord } from '../core/types.js';
import { decodeCursor, encodeCursor, matchesQuery, pageSizeOf, type RegistryStore, searchableText } from './registry-store.js';

export interface InMemoryRegistryStoreOptions {
  /** Most agents kept; a new one past it is refused. Default 100 000. */
  maxAgents?: number;
}

/** Thrown by `put` when the store is full. */
export class RegistryStoreFullError extends RegistryConflictError {
  static override readonly errorName: string = 'RegistryStoreFullError';
}

const copy = (record: AgentRecord): AgentRecord => structuredClone(record);

/**
 * The embedded default store: a fresh machine needs no service. Ids are kept sorted so a page
 * starts with a binary search; the searchable text of each record is computed once per write.
 */
export function createInMemoryRegistryStore(options: InMemoryRegistryStoreOptions = {}): RegistryStore {
  const maxAgents = options.maxAgents ?? 100_000;
  if (!Number.isSafeInteger(maxAgents) || maxAgents < 1) throw new RangeError(`expected maxAgents >= 1, got ${String(maxAgents)}`);
  const records = new Map<string, { record: AgentRecord; text: string }>();
  const byAgentId = new Map<string, string>();
  const byCardUrl = new Map<string, string>();
  const sortedIds: string[] = [];
  // Sorted ids per skill id and per tag: a search by either walks only its agents.
  const bySkill = new Map<string, string[]>();
  const byTag = new Map<string, string[]>();

  const indexAfter = (list: readonly string[], id: string | undefined): number => {
    if (id === undefined) return 0;
    let low = 0;
    let high = list.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((list[mid] as string) <= id) low = mid + 1;
      else high = mid;
    }
    return low;
  };
  const addTo = (index: Map<string, string[]>, key: string, id: string): void => {
    let list = index.get(key);
    if (!list) {
      list = [];
      index.set(key, list);
    }
    const at = indexAfter(list, id);
    if (list[at - 1] !== id) list.splice(at, 0, id);
  };
  const removeFrom = (index: Map<string, string[]>, key: string, id: string): void => {
    const list = index.get(key);
    if (!list) return;
    const at = indexAfter(list, id) - 1;
    if (list[at] === id) list.splice(at, 1);
    if (list.length === 0) index.delete(key);
  };

  const owner = (index: Map<string, string>, key: string): AgentRecord | undefined => {
    const id = index.get(key);
    const entry = id === undefined ? undefined : records.get(id);
    return entry ? copy(entry.record) : undefined;
  };

  return {
    async get(id) {
      const entry = records.get(id);
      return entry ? copy(entry.record) : undefined;
    },
    async findByAgentId(agentId) {
      return owner(byAgentId, agentId);
    },
    async findByCardUrl(cardUrl) {
      return owner(byCardUrl, cardUrl);
    },
    async put(record, expectedRevision) {
      const existing = records.get(record.id);
      if ((existing?.record.revision ?? null) !== expectedRevision) throw new RegistryConflictError(record.id);
      const agentOwner = byAgentId.get(record.agentId);
      const urlOwner = byCardUrl.get(record.cardUrl);
      if ((agentOwner !== undefined && agentOwner !== record.id) || (urlOwner !== undefined && urlOwner !== record.id)) {
        throw new RegistryConflictError(record.id);
      }
      if (!existing && records.size >= maxAgents) throw new RegistryStoreFullError(record.id, `the store holds ${maxAgents} agents`);
      const stored = { ...copy(record), revision: (expectedRevision ?? 0) + 1 };
      if (existing) {
        byCardUrl.delete(existing.record.cardUrl);
        for (const skill of existing.record.skills) removeFrom(bySkill, skill, stored.id);
        for (const tag of existing.record.tags) removeFrom(byTag, tag, stored.id);
      } else {
        sortedIds.splice(indexAfter(sortedIds, record.id), 0, record.id);
      }
      for (const skill of stored.skills) addTo(bySkill, skill, stored.id);
      for (const tag of stored.tags) addTo(byTag, tag, stored.id);
      // Every AgentID the agent ever held finds it (revoked and rotated keys included).
      for (const former of stored.keyHistory) if (!byAgentId.has(former.agentId)) byAgentId.set(former.agentId, stored.id);
      byAgentId.set(stored.agentId, stored.id);
      byCardUrl.set(stored.cardUrl, stored.id);
      records.set(stored.id, { record: stored, text: searchableText(stored) });
      return copy(stored);
    },
    async search(query: AgentQuery): Promise<AgentPage> {
      const size = pageSizeOf(query);
      const agents: AgentRecord[] = [];
      const candidates =
        query.skill !== undefined ? (bySkill.get(query.skill) ?? []) : query.tag !== undefined ? (byTag.get(query.tag) ?? []) : sortedIds;
      for (let index = indexAfter(candidates, decodeCursor(query.cursor)); index < candidates.length; index++) {
        const entry = records.get(candidates[index] as string);
        if (!entry || !matchesQuery(entry.record, query, entry.text)) continue;
        if (agents.length === size) return { agents, nextCursor: encodeCursor((agents.at(-1) as AgentRecord).id) };
        agents.push(copy(entry.record));
      }
      return { agents };
    },
  };
}
