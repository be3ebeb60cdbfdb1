import type { AgentCard, CircuitBreakerOptions, CircuitState } from '@a2aplane/a2a-types';
import { IncompatiblePeerError } from './errors.js';
import { type PeerNegotiator, type PeerSnapshot, type TaskSpec, cardQualifies } from './peer.js';
import { newPeerEntry, observeOutcome, type PeerEntry, type PeerOutcome, type PeerSeed, snapshot } from './peer-entry.js';

export type { PeerOutcome, PeerSeed } from './peer-entry.js';

export interface PeerPoolOptions {
  /** Weight of the newest observation in every moving average, in (0, 1]. Default 0.3. */
  ewmaAlpha?: number;
  /** Options of the per-peer circuit breaker. */
  breaker?: CircuitBreakerOptions;
  /** Milliseconds since some epoch; also the breakers' clock unless `breaker.clock` is set. Default `Date.now`. */
  clock?: () => number;
  /**
   * Negotiates with every card that enters the pool (`upsert`: discovery and each refresh), such
   * as `artifactVersionNegotiator()` of `@a2aplane/a2a-rulake-artifacts`. A refusal keeps the peer
   * out (or takes it out) and `upsert` throws `IncompatiblePeerError`; agreed terms are on the snapshot.
   */
  negotiate?: PeerNegotiator;
}

export const DEFAULT_EWMA_ALPHA = 0.3;

function requireId(id: unknown): asserts id is string {
  if (typeof id !== 'string' || id === '') throw new TypeError(`expected peer id to be a non-empty string, got ${typeof id}`);
}

/**
 * The peers the router may delegate to, with observed latency, cost, load and health. A peer whose
 * circuit breaker is open is left out of `candidates()` instead of being returned with a high
 * failure rate (ADR-159 r2); once the cooldown passes it is offered again for one probe.
 */
export class PeerPool {
  private readonly peers = new Map<string, PeerEntry>();
  private readonly alpha: number;
  private readonly breakerOptions: CircuitBreakerOptions;
  private readonly negotiate: PeerNegotiator | undefined;

  constructor(options: PeerPoolOptions = {}) {
    if (options.negotiate !== undefined && typeof options.negotiate !== 'function') {
      throw new TypeError(`expected negotiate to be a function, got ${typeof options.negotiate}`);
    }
    this.negotiate = options.negotiate;
    const alpha = options.ewmaAlpha ?? DEFAULT_EWMA_ALPHA;
    if (typeof alpha !== 'number' || !(alpha > 0 && alpha <= 1)) throw new RangeError(`expected ewmaAlpha in (0, 1], got ${alpha}`);
    this.alpha = alpha;
    const clock = options.clock ?? Date.now;
    this.breakerOptions = { clock, ...options.breaker };
  }

  /**
   * Adds a peer or replaces its card; observed statistics and breaker state are kept. With
   * `negotiate`, a card it refuses is not added (a known peer is removed) and this throws
   * `IncompatiblePeerError`.
   */
  upsert(id: string, card: AgentCard, seed?: PeerSeed): void {
    requireId(id);
    if (typeof card !== 'object' || card === null || !Array.isArray(card.skills)) {
      throw new TypeError(`expected card to be an AgentCard, got ${card === null ? 'null' : typeof card}`);
    }
    let terms: Readonly<Record<string, string>> | undefined;
    if (this.negotiate) {
      const verdict = this.negotiate({ id, card });
      if (!verdict.ok) {
        this.peers.delete(id);
        throw new IncompatiblePeerError({
          message: `peer ${id} is incompatible: ${verdict.reason}`,
          metadata: { ...verdict.metadata, agentId: id.slice(0, 128) },
        });
      }
      terms = verdict.terms === undefined ? undefined : Object.freeze({ ...verdict.terms });
    }
    const existing = this.peers.get(id);
    if (existing) {
      existing.card = card;
      existing.terms = terms;
      return;
    }
    this.peers.set(id, newPeerEntry(id, card, terms, seed, this.breakerOptions));
  }

  remove(id: string): void {
    this.peers.delete(id);
  }

  has(id: string): boolean {
    return this.peers.has(id);
  }

  get(id: string): PeerSnapshot | undefined {
    const entry = this.peers.get(id);
    return entry ? snapshot(entry) : undefined;
  }

  /** Every peer, breaker state regardless, in insertion order. */
  all(): PeerSnapshot[] {
    return [...this.peers.values()].map(snapshot);
  }

  ids(): string[] {
    return [...this.peers.keys()];
  }

  breakerState(id: string): CircuitState | undefined {
    return this.peers.get(id)?.breaker.state();
  }

  /**
   * Peers that can take the task: the skill is advertised, its input modes (or the card's default
   * ones) accept every mode of the task, the card lists every required capability, and the breaker
   * admits a request (closed, or half-open with its probe still free).
   */
  candidates(task: TaskSpec): PeerSnapshot[] {
    if (typeof task?.skillId !== 'string') throw new TypeError(`expected task.skillId to be a string, got ${typeof task?.skillId}`);
    const out: PeerSnapshot[] = [];
    for (const entry of this.peers.values()) {
      if (entry.breaker.isAvailable() && cardQualifies(entry.card, task)) out.push(snapshot(entry));
    }
    return out;
  }

  /**
   * Marks a request as started: counts it in `openTasks` and takes the half-open probe. Returns
   * false (and counts nothing) when the breaker refuses the request or the peer is unknown.
   */
  recordStart(id: string): boolean {
    const entry = this.peers.get(id);
    if (!entry?.breaker.canRequest()) return false;
    entry.openTasks++;
    return true;
  }

  /** Ends a request with a verdict: updates the averages and feeds the breaker. */
  recordOutcome(id: string, outcome: PeerOutcome): void {
    const entry = this.peers.get(id);
    if (!entry) return;
    if (typeof outcome?.latencyMs !== 'number' || !(outcome.latencyMs >= 0)) {
      throw new RangeError(`expected latencyMs to be a number >= 0, got ${String(outcome?.latencyMs)}`);
    }
    observeOutcome(entry, outcome, this.alpha);
  }

  /** Ends a request without a verdict on the peer (the caller cancelled): frees its slot and probe. */
  recordCancel(id: string): void {
    const entry = this.peers.get(id);
    if (!entry) return;
    entry.openTasks = Math.max(0, entry.openTasks - 1);
    entry.breaker.releaseProbe();
  }

  /**
   * A health-check verdict: feeds the breaker only (task statistics are left alone). A success
   * closes a half-open breaker; a failure counts towards opening it, or restarts its cooldown.
   */
  recordHealth(id: string, ok: boolean): void {
    const entry = this.peers.get(id);
    if (!entry) return;
    if (!ok) {
      entry.breaker.recordFailure();
      return;
    }
    const state = entry.breaker.state();
    if (state === 'closed') entry.breaker.recordSuccess();
    else if (state === 'half-open' && entry.breaker.canRequest()) entry.breaker.recordSuccess();
  }
}

/** Makes the pool of known peers and their health; see `PeerPool`. */
export function createPeerPool(options: PeerPoolOptions = {}): PeerPool {
  return new PeerPool(options);
}
