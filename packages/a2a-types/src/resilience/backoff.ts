/** Exponential backoff with jitter: `initialDelayMs * factor^attempt`, capped at `maxDelayMs`, spread by ±`jitter`. */
export interface BackoffOptions {
  /** Delay before the first retry, in ms. */
  initialDelayMs: number;
  /** Largest delay, in ms (before jitter). */
  maxDelayMs: number;
  /** Growth per attempt. */
  factor: number;
  /** Random spread as a fraction of the delay (0.2 = ±20 %), so many retriers do not wake together. */
  jitter: number;
}

/**
 * The delay before retry number `attempt` (0-based). A server's `Retry-After` hint, when given, is a floor:
 * waiting less than the server asked only earns another refusal.
 */
export function backoffDelay(options: BackoffOptions, attempt: number, random: () => number = Math.random, retryAfterMs?: number): number {
  const base = Math.min(options.initialDelayMs * options.factor ** attempt, options.maxDelayMs);
  const spread = base * options.jitter * (random() * 2 - 1);
  const delay = Math.max(0, Math.round(base + spread));
  return retryAfterMs === undefined ? delay : Math.max(delay, retryAfterMs);
}
