import { type A2AError, backoffDelay, isA2AError, parseRetryAfter } from '@a2aplane/a2a-types';
import { A2AAbortError, A2ATransportError } from './errors.js';

export interface RetryOptions {
  /** Retries after the first attempt. Default 3; 0 disables retries. */
  retries?: number;
  /** First backoff delay in ms. Default 100. */
  initialDelayMs?: number;
  /** Largest backoff delay in ms. Default 5000. */
  maxDelayMs?: number;
  /** Backoff multiplier. Default 2. */
  factor?: number;
  /** Random spread as a fraction of the delay (0.2 = ±20%). Default 0.2. */
  jitter?: number;
  /** Longest `Retry-After` the client will wait, in ms; longer gives up. Default 60000. */
  maxRetryAfterMs?: number;
}

export type ResolvedRetryOptions = Required<RetryOptions>;

// One backoff and one Retry-After reader for the whole project (the resilience module of a2a-types).
export { backoffDelay, parseRetryAfter };

export const DEFAULT_RETRY_OPTIONS: ResolvedRetryOptions = {
  retries: 3,
  initialDelayMs: 100,
  maxDelayMs: 5000,
  factor: 2,
  jitter: 0.2,
  maxRetryAfterMs: 60_000,
};

export function resolveRetryOptions(options: RetryOptions | undefined): ResolvedRetryOptions {
  const resolved = { ...DEFAULT_RETRY_OPTIONS, ...options };
  for (const [key, value] of Object.entries(resolved)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new RangeError(`expected retry.${key} to be a non-negative number, got ${String(value)}`);
    }
  }
  return resolved;
}

/** Whether an error may go away when the same request is sent again, and after how long. */
export function retryDecision(error: unknown): { retry: boolean; afterMs?: number } {
  if (A2ATransportError.isInstance(error)) {
    return error.retryAfterMs === undefined ? { retry: error.retryable } : { retry: error.retryable, afterMs: error.retryAfterMs };
  }
  if (isA2AError(error)) {
    // Application errors are final, except rate limiting and server failures reported with a 5xx status.
    const retry = error.reason === 'RATE_LIMITED' || (error.retryable && error.httpStatus >= 500 && hasHttpStatus(error));
    const afterMs = error.retryAfterSeconds === undefined ? undefined : error.retryAfterSeconds * 1000;
    return afterMs === undefined ? { retry } : { retry, afterMs };
  }
  return { retry: false };
}

const OBSERVED_STATUS = Symbol.for('@a2aplane/a2a-client/observedStatus');

/** Marks an A2AError as having arrived with a 5xx HTTP status (so that it may be retried). */
export function markObservedStatus(error: A2AError, status: number): A2AError {
  Object.defineProperty(error, OBSERVED_STATUS, { value: status });
  return error;
}

function hasHttpStatus(error: A2AError): boolean {
  const status: unknown = Reflect.get(error, OBSERVED_STATUS);
  return typeof status === 'number' && status >= 500;
}

/** Sleeps `ms`, rejecting with A2AAbortError when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new A2AAbortError({ cause: signal.reason }));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new A2AAbortError({ cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Runs `attempt` until it succeeds, fails for good, or the retries are used up. */
export async function withRetry<T>(
  options: ResolvedRetryOptions,
  signal: AbortSignal | undefined,
  attempt: (attemptNumber: number) => Promise<T>,
): Promise<T> {
  try {
    return await attempt(0);
  } catch (error) {
    return retryAfterFailure(options, signal, attempt, error);
  }
}

/**
 * The retries of `withRetry` after the first attempt failed with `error`: a caller that runs the
 * first attempt itself (the client, on every call) needs no retry frame or closure until a failure.
 */
export async function retryAfterFailure<T>(
  options: ResolvedRetryOptions,
  signal: AbortSignal | undefined,
  attempt: (attemptNumber: number) => Promise<T>,
  error: unknown,
): Promise<T> {
  let failure = error;
  for (let n = 0; ; n++) {
    const decision = retryDecision(failure);
    if (!decision.retry || n >= options.retries) throw failure;
    const delay = decision.afterMs ?? backoffDelay(options, n);
    if (delay > options.maxRetryAfterMs) throw failure;
    await sleep(delay, signal);
    try {
      return await attempt(n + 1);
    } catch (next) {
      failure = next;
    }
  }
}
