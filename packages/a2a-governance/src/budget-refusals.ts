import { BudgetExceededError } from '@a2aplane/a2a-types';
import type { BudgetLimit } from './budget-ledger.js';

/** Why a request does not fit the window now. */
export interface Refusal {
  limit: Exclude<BudgetLimit, 'queue_full'>;
  observed: number;
  cap: number;
  /**
   * Milliseconds until the request could fit by expiry alone (a hint when in-flight reservations
   * must be metered first); `undefined` when it never can (estimate > cap).
   */
  retryAfterMs: number | undefined;
  /**
   * Milliseconds until expiry alone changes the verdict, so a queued head must be woken by a
   * timer; `undefined` when only metering an in-flight reservation can (meter wakes the queue).
   */
  wakeMs: number | undefined;
}

/**
 * The last refusal of one kind, its frozen error and a promise rejected with it: a shed storm
 * repeats the same refusal (the window only moves when entries expire), so consecutive identical
 * refusals share both instead of building an error and a rejected promise per request.
 */
interface CachedRefusal {
  limit: BudgetLimit;
  observed: number;
  cap: number;
  retryAfterSeconds: number;
  error: BudgetExceededError;
  /** Made on first use by `acquire` (a refusal that only rejects a queued waiter needs none). */
  rejected: Promise<never> | undefined;
}

/**
 * Builds the frozen error of a budget refusal. Refusals are flow control at a high rate: capturing
 * a stack trace costs several times more than the decision and tells the caller nothing, so V8's
 * capture is switched off while the error is built (elsewhere `stackTraceLimit` does not exist and
 * this is a no-op). The error is frozen because identical refusals share it.
 */
function budgetError(message: string, metadata: Record<string, string>, retryAfterSeconds: number): BudgetExceededError {
  const errorConstructor = Error as { stackTraceLimit?: number };
  const limit = errorConstructor.stackTraceLimit;
  errorConstructor.stackTraceLimit = 0;
  let error: BudgetExceededError;
  try {
    error = new BudgetExceededError({ message, metadata, retryAfterSeconds });
  } finally {
    errorConstructor.stackTraceLimit = limit;
  }
  Object.freeze(error.metadata);
  Object.freeze(error.details);
  return Object.freeze(error);
}

/** `Retry-After` seconds of a wait (at least 1; 60 when no wait is known). */
export function retrySeconds(ms: number | undefined): number {
  return ms === undefined ? 60 : Math.max(1, Math.ceil(ms / 1000));
}

/**
 * The errors of one ledger's refusals, rebuilt only when a refusal differs from the previous one
 * of its kind (see `createInMemoryBudgetLedger`: a shed storm allocates nothing per request).
 */
export class RefusalCache {
  private last: CachedRefusal | undefined;
  private lastQueueFull: CachedRefusal | undefined;

  constructor(
    private readonly windowMs: number,
    private readonly maxQueueDepth: number,
  ) {}

  /** The shared error of `refusal`. */
  error(refusal: Refusal): BudgetExceededError {
    return this.cached(refusal).error;
  }

  /** The shared rejected promise of `refusal`. */
  rejection(refusal: Refusal): Promise<never> {
    return rejection(this.cached(refusal));
  }

  /** The shared rejected promise of a full queue, whose head was refused with `headRefusal`. */
  queueFull(headRefusal: Refusal | undefined): Promise<never> {
    const seconds = retrySeconds(headRefusal?.retryAfterMs);
    const last = this.lastQueueFull;
    if (last !== undefined && last.retryAfterSeconds === seconds) return rejection(last);
    const { maxQueueDepth } = this;
    const error = budgetError(
      `global budget queue is full (${maxQueueDepth} waiting)`,
      { limit: 'queue_full', maxQueueDepth: String(maxQueueDepth) },
      seconds,
    );
    const cached: CachedRefusal = {
      limit: 'queue_full',
      observed: maxQueueDepth,
      cap: maxQueueDepth,
      retryAfterSeconds: seconds,
      error,
      rejected: undefined,
    };
    this.lastQueueFull = cached;
    return rejection(cached);
  }

  private cached(refusal: Refusal): CachedRefusal {
    const seconds = retrySeconds(refusal.retryAfterMs);
    const last = this.last;
    if (
      last !== undefined &&
      last.limit === refusal.limit &&
      last.observed === refusal.observed &&
      last.cap === refusal.cap &&
      last.retryAfterSeconds === seconds
    ) {
      return last;
    }
    const error = budgetError(
      `global budget exceeded: ${refusal.limit} per ${this.windowMs / 1000}s window at ${refusal.observed} of ${refusal.cap}`,
      { limit: refusal.limit, observed: String(refusal.observed), cap: String(refusal.cap) },
      seconds,
    );
    const cached: CachedRefusal = {
      limit: refusal.limit,
      observed: refusal.observed,
      cap: refusal.cap,
      retryAfterSeconds: seconds,
      error,
      rejected: undefined,
    };
    this.last = cached;
    return cached;
  }
}

/** The promise rejected with a cached refusal's error, shared by identical refusals. */
function rejection(cached: CachedRefusal): Promise<never> {
  cached.rejected ??= Promise.reject(cached.error);
  return cached.rejected;
}
