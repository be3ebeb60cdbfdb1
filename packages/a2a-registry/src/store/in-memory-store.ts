import { createMemoryIndex } from './memory-index.js';
import type { RegistryStore } from './registry-store.js';

export { RegistryStoreFullError } from './memory-index.js';

export interface InMemoryRegistryStoreOptions {
  /** Most agents kept; a new one past it is refused. Default 100 000. */
  maxAgents?: number;
}

/** The most agents an embedded store keeps unless told otherwise. */
const DEFAULT_MAX_AGENTS = 100_000;

export function checkedMaxAgents(maxAgents: number = DEFAULT_MAX_AGENTS): number {
  if (!Number.isSafeInteger(maxAgents) || maxAgents < 1) throw new RangeError(`expected maxAgents >= 1, got ${String(maxAgents)}`);
  return maxAgents;
}

/**
 * The embedded default store: a fresh machine needs no service. Ids are kept sorted so a page
 * starts with a binary search, with sorted ids per skill and per tag; the searchable text of each
 * record is computed once per write.
 */
export function createInMemoryRegistryStore(options: InMemoryRegistryStoreOptions = {}): RegistryStore {
  const index = createMemoryIndex(checkedMaxAgents(options.maxAgents));
  return { get: index.get, findByAgentId: index.findByAgentId, findByCardUrl: index.findByCardUrl, put: index.put, search: index.search };
}
