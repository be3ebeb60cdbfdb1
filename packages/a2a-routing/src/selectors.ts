import type { PeerSnapshot, TaskSpec } from './peer.js';
import { hasCapabilities } from './peer.js';

/** Picks one peer for a task, or `undefined` for "no eligible peer" (ADR-159 r2 `PeerSelector`). */
export interface PeerSelector {
  readonly name: string;
  select(task: TaskSpec, peers: readonly PeerSnapshot[]): PeerSnapshot | undefined;
}

function byId(a: PeerSnapshot, b: PeerSnapshot): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function minBy(peers: readonly PeerSnapshot[], compare: (a: PeerSnapshot, b: PeerSnapshot) => number): PeerSnapshot | undefined {
  let best: PeerSnapshot | undefined;
  for (const peer of peers) if (best === undefined || compare(peer, best) < 0) best = peer;
  return best;
}

/**
 * Lowest `ewmaCostUsd` among peers whose `ewmaLatencyMs` is under `budgetMs` (or under the task's
 * `deadlineMs` when that is tighter). Ties go to the lower latency, then fewer open tasks, then id.
 */
export function cheapestUnderLatency(options: { budgetMs: number }): PeerSelector {
  const budgetMs = options?.budgetMs;
  if (typeof budgetMs !== 'number' || !(budgetMs > 0))
    throw new RangeError(`expected budgetMs to be a number > 0, got ${String(budgetMs)}`);
  return {
    name: 'cheapest_under_latency',
    select(task, peers) {
      const limit = task.deadlineMs !== undefined ? Math.min(budgetMs, task.deadlineMs) : budgetMs;
      return minBy(
        peers.filter((peer) => peer.ewmaLatencyMs < limit),
        (a, b) => a.ewmaCostUsd - b.ewmaCostUsd || a.ewmaLatencyMs - b.ewmaLatencyMs || a.openTasks - b.openTasks || byId(a, b),
      );
    },
  };
}

/** Minimum `ewmaLatencyMs`, costs be damned. Ties go to fewer open tasks, then id. */
export function lowestLatency(): PeerSelector {
  return {
    name: 'lowest_latency',
    select(_task, peers) {
      return minBy(peers, (a, b) => a.ewmaLatencyMs - b.ewmaLatencyMs || a.openTasks - b.openTasks || byId(a, b));
    },
  };
}

/**
 * Deterministic rotation for reproducible tests: peers are ordered by id and the n-th call (from 0)
 * picks index `(seed + n) mod count`, so the same seed and pool give the same sequence.
 */
export function roundRobin(options: { seed?: number } = {}): PeerSelector {
  const seed = options.seed ?? 0;
  if (!Number.isInteger(seed)) throw new RangeError(`expected seed to be an integer, got ${String(seed)}`);
  let calls = 0;
  return {
    name: 'round_robin',
    select(_task, peers) {
      if (peers.length === 0) return undefined;
      const ordered = [...peers].sort(byId);
      const index = (((seed + calls) % ordered.length) + ordered.length) % ordered.length;
      calls++;
      return ordered[index];
    },
  };
}

/** The peer whose card lists every required capability, lowest `failureRate` first; ties keep pool order. */
export function capabilityMatch(): PeerSelector {
  return {
    name: 'capability_match',
    select(task, peers) {
      return minBy(
        peers.filter((peer) => hasCapabilities(peer.card, task.requiredCapabilities)),
        (a, b) => a.failureRate - b.failureRate,
      );
    },
  };
}

/** Tries each selector in order; the first that returns a peer wins (ADR-159 `ChainedSelector`). */
export function chainSelectors(...selectors: PeerSelector[]): PeerSelector {
  for (const selector of selectors) {
    if (typeof selector?.select !== 'function') throw new TypeError(`expected a PeerSelector, got ${typeof selector}`);
  }
  return {
    name: `chain(${selectors.map((selector) => selector.name).join(',')})`,
    select(task, peers) {
      for (const selector of selectors) {
        const picked = selector.select(task, peers);
        if (picked !== undefined) return picked;
      }
      return undefined;
    },
  };
}
