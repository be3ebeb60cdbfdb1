export interface CircuitBreakerOptions {
  /** Consecutive failures that open the breaker. Default 5. */
  failureThreshold?: number;
  /** How long an open breaker refuses requests before it admits one probe. Default 30 000 ms. */
  cooldownMs?: number;
  /** Milliseconds since some epoch. Default `Date.now`. */
  clock?: () => number;
}

export type CircuitState = 'closed' | 'open' | 'half-open';

export const DEFAULT_FAILURE_THRESHOLD = 5;
export const DEFAULT_COOLDOWN_MS = 30_000;

/**
 * Shared by the client (per origin), a2a-routing's peer pool (per peer) and the server's push sender (per push
 * registration), so it lives here, in the one package all of them depend on (decisions 0013, 0057).
 *
 * Open-on-N-failures, half-open-with-probe (ADR-159 open question 1). Closed: requests flow and
 * consecutive failures are counted. Open: every request is refused until `cooldownMs` has passed.
 * Half-open: exactly one probe is admitted; its success closes the breaker, its failure re-opens it
 * for another cooldown.
 */
export class CircuitBreaker {
  declare readonly failureThreshold: number;
  declare readonly cooldownMs: number;
  declare private readonly clock: () => number;
  declare private openedAt: number | undefined;
  private failures = 0;
  private probeInFlight = false;

  constructor(options: CircuitBreakerOptions = {}) {
    const threshold = options.failureThreshold ?? DEFAULT_FAILURE_THRESHOLD;
    const cooldown = options.cooldownMs ?? DEFAULT_COOLDOWN_MS;
    if (!Number.isInteger(threshold) || threshold < 1)
      throw new RangeError(`expected failureThreshold to be an integer >= 1, got ${threshold}`);
    if (typeof cooldown !== 'number' || !(cooldown >= 0)) throw new RangeError(`expected cooldownMs to be a number >= 0, got ${cooldown}`);
    this.failureThreshold = threshold;
    this.cooldownMs = cooldown;
    this.clock = options.clock ?? Date.now;
  }

  state(): CircuitState {
    if (this.openedAt === undefined) return 'closed';
    return this.clock() - this.openedAt >= this.cooldownMs ? 'half-open' : 'open';
  }

  /** Whether `canRequest()` would say yes, without taking the half-open probe. */
  isAvailable(): boolean {
    const state = this.state();
    return state === 'closed' || (state === 'half-open' && !this.probeInFlight);
  }

  /** Asks to send one request. In half-open state the first caller takes the single probe. */
  canRequest(): boolean {
    const state = this.state();
    if (state === 'closed') return true;
    if (state === 'open' || this.probeInFlight) return false;
    this.probeInFlight = true;
    return true;
  }

  recordSuccess(): void {
    const state = this.state();
    // A late success from before the breaker opened says nothing about the peer now.
    if (state === 'open') return;
    this.openedAt = undefined;
    this.failures = 0;
    this.probeInFlight = false;
  }

  recordFailure(): void {
    const state = this.state();
    this.probeInFlight = false;
    if (state === 'closed') {
      this.failures++;
      if (this.failures >= this.failureThreshold) this.openedAt = this.clock();
      return;
    }
    // A failed probe (or a failure while open) starts a fresh cooldown.
    this.openedAt = this.clock();
  }

  /** Gives back a probe whose request ended without a verdict (for example, the caller aborted). */
  releaseProbe(): void {
    this.probeInFlight = false;
  }
}

/** Creates a breaker: closed until `failureThreshold` consecutive failures, then open for `cooldownMs`. */
export function createCircuitBreaker(options?: CircuitBreakerOptions): CircuitBreaker {
  return new CircuitBreaker(options);
}
