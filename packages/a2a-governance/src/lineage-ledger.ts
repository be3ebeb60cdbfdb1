/** Spend summed over a trace or a root agent. */
export interface SpendTotals {
  usd: number;
  tokens: number;
  tasks: number;
}

export interface SpendAggregatorOptions {
  /** Traces kept; past it the least recently updated are dropped, an eighth of the limit at a time. Default 10 000. */
  maxTraces?: number;
  /** Root agents kept; past it the least recently updated are dropped, an eighth of the limit at a time. Default 10 000. */
  maxRootAgents?: number;
}

const NANO = 1e9;

interface Entry {
  usdNano: number;
  tokens: number;
  tasks: number;
  /** When the entry was last updated, in updates of its map (orders ties in `topRoots`). */
  stamp: number;
}

/**
 * Keys to entries, evicting the least recently updated. The Map's own order is the update order:
 * an update moves its entry to the back (a delete and an insert, skipped when the key is already
 * the last one updated), so eviction, an eighth of the limit at a time, deletes from the front in
 * one short walk. A governed server records a fresh trace id per root request, so this map sits at
 * its limit: eviction must not sort or scan the whole map.
 */
class LeastRecentlyUpdated {
  private readonly map = new Map<string, Entry>();
  private updates = 0;
  private lastKey: string | undefined;
  private lastEntry: Entry | undefined;

  constructor(private readonly limit: number) {}

  get(key: string): Entry | undefined {
    return this.map.get(key);
  }

  entries(): IterableIterator<[string, Entry]> {
    return this.map.entries();
  }

  touch(key: string): Entry {
    let entry: Entry | undefined;
    if (key === this.lastKey) {
      // Consecutive updates of one key (one trace, one root agent): already at the back.
      entry = this.lastEntry as Entry;
    } else {
      entry = this.map.get(key);
      if (entry === undefined) {
        if (this.map.size >= this.limit) this.evict(this.map.size - this.limit + 1 + (this.limit >> 3));
        entry = { usdNano: 0, tokens: 0, tasks: 0, stamp: 0 };
      } else {
        this.map.delete(key);
      }
      this.map.set(key, entry);
      this.lastKey = key;
      this.lastEntry = entry;
    }
    entry.stamp = ++this.updates;
    return entry;
  }

  /** Drops the `count` least recently updated entries: the first `count` in the Map's order. */
  private evict(count: number): void {
    let left = count;
    for (const key of this.map.keys()) {
      if (left-- <= 0) break;
      this.map.delete(key);
    }
    this.lastKey = undefined;
    this.lastEntry = undefined;
  }
}

function add(entry: Entry, usdNano: number, tokens: number): void {
  entry.usdNano += usdNano;
  entry.tokens += tokens;
  entry.tasks += 1;
}

const totals = (entry: Entry | undefined): SpendTotals =>
  entry ? { usd: entry.usdNano / NANO, tokens: entry.tokens, tasks: entry.tasks } : { usd: 0, tokens: 0, tasks: 0 };

/**
 * Attributes actual spend along the lineage (ADR-159 r3): by trace id ("what did this call graph
 * cost?") and by root agent ("which root task is burning our tokens?"). Memory is bounded by
 * dropping the least recently updated keys (an eighth of the limit at a time).
 */
export class SpendAggregator {
  private readonly traces: LeastRecentlyUpdated;
  private readonly roots: LeastRecentlyUpdated;

  constructor(options: SpendAggregatorOptions = {}) {
    const maxTraces = options.maxTraces ?? 10_000;
    const maxRootAgents = options.maxRootAgents ?? 10_000;
    if (!(maxTraces >= 1) || !(maxRootAgents >= 1)) throw new RangeError('expected maxTraces and maxRootAgents >= 1');
    this.traces = new LeastRecentlyUpdated(maxTraces);
    this.roots = new LeastRecentlyUpdated(maxRootAgents);
  }

  record(input: { traceId: string; rootAgentId: string; usd: number; tokens: number }): void {
    const usd = Number.isFinite(input.usd) && input.usd > 0 ? Math.round(input.usd * NANO) : 0;
    const tokens = Number.isFinite(input.tokens) && input.tokens > 0 ? input.tokens : 0;
    add(this.traces.touch(input.traceId), usd, tokens);
    add(this.roots.touch(input.rootAgentId), usd, tokens);
  }

  byTrace(traceId: string): SpendTotals {
    return totals(this.traces.get(traceId));
  }

  byRootAgent(rootAgentId: string): SpendTotals {
    return totals(this.roots.get(rootAgentId));
  }

  /** The `n` root agents with the highest USD spend (then tokens), highest first. */
  topRoots(n: number): Array<SpendTotals & { rootAgentId: string }> {
    return [...this.roots.entries()]
      .sort(([, a], [, b]) => b.usdNano - a.usdNano || b.tokens - a.tokens || a.stamp - b.stamp)
      .slice(0, Math.max(0, n))
      .map(([rootAgentId, entry]) => ({ rootAgentId, ...totals(entry) }));
  }
}

/** Makes the spend aggregator by trace id and by root agent; see `SpendAggregator`. */
export function createSpendAggregator(options: SpendAggregatorOptions = {}): SpendAggregator {
  return new SpendAggregator(options);
}
