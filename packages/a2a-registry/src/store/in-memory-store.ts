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

  const indexAfter = (id: string | undefined): number => {
    if (id === undefined) return 0;
    let low = 0;
    let high = sortedIds.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((sortedIds[mid] as string) <= id) low = mid + 1;
      else high = mid;
    }
    return low;
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
      } else {
        sortedIds.splice(indexAfter(record.id), 0, record.id);
      }
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
      for (let index = indexAfter(decodeCursor(query.cursor)); index < sortedIds.length; index++) {
        const entry = records.get(sortedIds[index] as string);
        if (!entry || !matchesQuery(entry.record, query, entry.text)) continue;
        if (agents.length === size) return { agents, nextCursor: encodeCursor((agents.at(-1) as AgentRecord).id) };
        agents.push(copy(entry.record));
      }
      return { agents };
    },
  };
}
