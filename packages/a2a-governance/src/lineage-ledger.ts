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
}

function touch(map: Map<string, Entry>, key: string, limit: number): Entry {
  let entry = map.get(key);
  if (entry) map.delete(key);
  else {
    entry = { usdNano: 0, tokens: 0, tasks: 0 };
    // Evict an eighth at a time: each walk from the front of a Map skips the holes earlier
    // deletions left there, so one walk per batch keeps eviction amortised O(1).
    if (map.size >= limit) {
      let excess = map.size - limit + 1 + (limit >> 3);
      for (const oldest of map.keys()) {
        map.delete(oldest);
        if (--excess <= 0) break;
      }
    }
  }
  map.set(key, entry);
  return entry;
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
  private readonly traces = new Map<string, Entry>();
  private readonly roots = new Map<string, Entry>();
  private readonly maxTraces: number;
  private readonly maxRootAgents: number;

  constructor(options: SpendAggregatorOptions = {}) {
    this.maxTraces = options.maxTraces ?? 10_000;
    this.maxRootAgents = options.maxRootAgents ?? 10_000;
    if (!(this.maxTraces >= 1) || !(this.maxRootAgents >= 1)) throw new RangeError('expected maxTraces and maxRootAgents >= 1');
  }

  record(input: { traceId: string; rootAgentId: string; usd: number; tokens: number }): void {
    const usd = Number.isFinite(input.usd) && input.usd > 0 ? Math.round(input.usd * NANO) : 0;
    const tokens = Number.isFinite(input.tokens) && input.tokens > 0 ? input.tokens : 0;
    add(touch(this.traces, input.traceId, this.maxTraces), usd, tokens);
    add(touch(this.roots, input.rootAgentId, this.maxRootAgents), usd, tokens);
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
      .sort(([, a], [, b]) => b.usdNano - a.usdNano || b.tokens - a.tokens)
      .slice(0, Math.max(0, n))
      .map(([rootAgentId, entry]) => ({ rootAgentId, ...totals(entry) }));
  }
}
