import { RegistryConflictError } from '../core/errors.js';
import type { AgentPage, AgentQuery, AgentRecord } from '../core/types.js';
import { decodeCursor, encodeCursor, matchesQuery, pageSizeOf, type RegistryStore, searchableText } from './registry-store.js';

/** Thrown by `put` when the store is full (too many agents, or a file past its size bound). */
export class RegistryStoreFullError extends RegistryConflictError {
  static override readonly errorName: string = 'RegistryStoreFullError';
}

/** Freezes `value` and everything in it. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}

/**
 * A record goes in as a private, frozen copy and comes out as that same frozen object: reads copy
 * nothing (a search page used to clone 20 records, most of its CPU), and no reader can change the
 * store through what it got (decision 0148).
 */
const frozenCopy = (record: AgentRecord): AgentRecord => deepFreeze(structuredClone(record));

/** Binary search: the index of the first entry of sorted `list` greater than `id` (0 for none). */
function indexAfter(list: readonly string[], id: string | undefined): number {
  if (id === undefined) return 0;
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((list[mid] as string) <= id) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Sorted ids per key (skill id, tag): a search by either walks only its agents. */
function createPostings() {
  const lists = new Map<string, string[]>();
  return {
    get: (key: string): readonly string[] => lists.get(key) ?? [],
    add(key: string, id: string): void {
      let list = lists.get(key);
      if (!list) {
        list = [];
        lists.set(key, list);
      }
      const at = indexAfter(list, id);
      if (list[at - 1] !== id) list.splice(at, 0, id);
    },
    remove(key: string, id: string): void {
      const list = lists.get(key);
      if (!list) return;
      const at = indexAfter(list, id) - 1;
      if (list[at] === id) list.splice(at, 1);
      if (list.length === 0) lists.delete(key);
    },
  };
}

/**
 * The records and indexes of the embedded stores (in memory, and the file store that persists
 * them): the store's reads and checked writes, plus `load` and `remove`, which set a record as it
 * is (revision included) for loading a file and for undoing a write the file did not take.
 */
type MemoryIndex = Omit<RegistryStore, 'close'> & {
  load(record: AgentRecord): void;
  remove(id: string): void;
};

export function createMemoryIndex(maxAgents: number): MemoryIndex {
  const records = new Map<string, { record: AgentRecord; text: string }>();
  const byAgentId = new Map<string, string>();
  const byCardUrl = new Map<string, string>();
  const sortedIds: string[] = [];
  const bySkill = createPostings();
  const byTag = createPostings();

  const owner = (index: Map<string, string>, key: string): AgentRecord | undefined => {
    const id = index.get(key);
    const entry = id === undefined ? undefined : records.get(id);
    return entry?.record;
  };

  function unindex(record: AgentRecord): void {
    byCardUrl.delete(record.cardUrl);
    for (const skill of record.skills) bySkill.remove(skill, record.id);
    for (const tag of record.tags) byTag.remove(tag, record.id);
  }

  /** Sets `stored` (a private frozen copy) as the record of its id, indexes included. */
  function set(stored: AgentRecord): void {
    const existing = records.get(stored.id);
    if (existing) unindex(existing.record);
    else sortedIds.splice(indexAfter(sortedIds, stored.id), 0, stored.id);
    for (const skill of stored.skills) bySkill.add(skill, stored.id);
    for (const tag of stored.tags) byTag.add(tag, stored.id);
    // Every AgentID the agent ever held finds it (revoked and rotated keys included).
    for (const former of stored.keyHistory) if (!byAgentId.has(former.agentId)) byAgentId.set(former.agentId, stored.id);
    byAgentId.set(stored.agentId, stored.id);
    byCardUrl.set(stored.cardUrl, stored.id);
    records.set(stored.id, { record: stored, text: searchableText(stored) });
  }

  return {
    async get(id) {
      return records.get(id)?.record;
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
      const stored = frozenCopy({ ...record, revision: (expectedRevision ?? 0) + 1 });
      set(stored);
      return stored;
    },
    load(record) {
      set(frozenCopy(record));
    },
    remove(id) {
      const entry = records.get(id);
      if (!entry) return;
      unindex(entry.record);
      for (const [agentId, holder] of byAgentId) if (holder === id) byAgentId.delete(agentId);
      sortedIds.splice(indexAfter(sortedIds, id) - 1, 1);
      records.delete(id);
    },
    async search(query: AgentQuery): Promise<AgentPage> {
      const size = pageSizeOf(query);
      const agents: AgentRecord[] = [];
      const candidates = query.skill !== undefined ? bySkill.get(query.skill) : query.tag !== undefined ? byTag.get(query.tag) : sortedIds;
      for (let index = indexAfter(candidates, decodeCursor(query.cursor)); index < candidates.length; index++) {
        const entry = records.get(candidates[index] as string);
        if (!entry || !matchesQuery(entry.record, query, entry.text)) continue;
        if (agents.length === size) return { agents, nextCursor: encodeCursor((agents.at(-1) as AgentRecord).id) };
        agents.push(entry.record);
      }
      return { agents };
    },
  };
}
