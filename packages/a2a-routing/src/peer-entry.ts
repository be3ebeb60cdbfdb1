import { type AgentCard, CircuitBreaker, type CircuitBreakerOptions } from '@a2aplane/a2a-types';
import type { PeerSnapshot } from './peer.js';

// One peer of the pool: its card, its moving averages of latency, cost and failures, its load
// and its circuit breaker.

export interface PeerOutcome {
  ok: boolean;
  latencyMs: number;
  costUsd?: number;
}

/** Optional starting estimates for a peer nobody has called yet (for example, from a price list). */
export interface PeerSeed {
  ewmaLatencyMs?: number;
  ewmaCostUsd?: number;
}

export interface PeerEntry {
  id: string;
  card: AgentCard;
  terms: Readonly<Record<string, string>> | undefined;
  ewmaLatencyMs: number;
  ewmaCostUsd: number;
  latencySeen: boolean;
  costSeen: boolean;
  openTasks: number;
  failureRate: number;
  breaker: CircuitBreaker;
}

/** A new peer: the seed's estimates (if any) until its first outcome, a closed breaker. */
export function newPeerEntry(
  id: string,
  card: AgentCard,
  terms: PeerEntry['terms'],
  seed: PeerSeed | undefined,
  breaker: CircuitBreakerOptions,
): PeerEntry {
  return {
    id,
    card,
    terms,
    ewmaLatencyMs: seed?.ewmaLatencyMs ?? 0,
    ewmaCostUsd: seed?.ewmaCostUsd ?? 0,
    latencySeen: seed?.ewmaLatencyMs !== undefined,
    costSeen: seed?.ewmaCostUsd !== undefined,
    openTasks: 0,
    failureRate: 0,
    breaker: new CircuitBreaker(breaker),
  };
}

/** Folds a request's outcome into the peer's moving averages (weight `alpha` for the newest) and its breaker. */
export function observeOutcome(entry: PeerEntry, outcome: PeerOutcome, alpha: number): void {
  entry.openTasks = Math.max(0, entry.openTasks - 1);
  const a = alpha;
  entry.ewmaLatencyMs = entry.latencySeen ? a * outcome.latencyMs + (1 - a) * entry.ewmaLatencyMs : outcome.latencyMs;
  entry.latencySeen = true;
  if (outcome.costUsd !== undefined && Number.isFinite(outcome.costUsd) && outcome.costUsd >= 0) {
    entry.ewmaCostUsd = entry.costSeen ? a * outcome.costUsd + (1 - a) * entry.ewmaCostUsd : outcome.costUsd;
    entry.costSeen = true;
  }
  entry.failureRate = a * (outcome.ok ? 0 : 1) + (1 - a) * entry.failureRate;
  if (outcome.ok) entry.breaker.recordSuccess();
  else entry.breaker.recordFailure();
}

/** The frozen public view of a peer. */
export function snapshot(entry: PeerEntry): PeerSnapshot {
  return Object.freeze({
    id: entry.id,
    card: entry.card,
    ...(entry.terms === undefined ? {} : { terms: entry.terms }),
    ewmaLatencyMs: entry.ewmaLatencyMs,
    ewmaCostUsd: entry.ewmaCostUsd,
    openTasks: entry.openTasks,
    failureRate: entry.failureRate,
  });
}
