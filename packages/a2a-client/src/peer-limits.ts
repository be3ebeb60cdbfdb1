import { type CircuitBreaker, type CircuitBreakerOptions, createCircuitBreaker } from '@a2aplane/a2a-types';
import { A2AAbortError } from './errors.js';

/** Default largest number of requests in flight to one origin, per client. */
export const DEFAULT_MAX_CONCURRENT_PER_ORIGIN = 64;

/** What the client keeps per origin: a concurrency cap and a circuit breaker. */
export interface PeerLimits {
  readonly origin: string;
  /** `undefined` when the breaker is disabled. */
  readonly breaker: CircuitBreaker | undefined;
  /** Takes a slot: synchronously when one is free, else waits in line (aborted by `signal`). */
  acquire(signal: AbortSignal | undefined): Promise<void> | undefined;
  /** Gives a slot back (to the next in line, if any). */
  release(): void;
}

interface Waiter {
  resolve(): void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    // Not a URL (a gRPC `host:port` target, say): the target is the origin.
    return url;
  }
}

/** Per-origin limits, created on first use and shared by the interfaces of one origin. */
export function createPeerLimitsFor(options: {
  maxConcurrent: number | undefined;
  breaker: CircuitBreakerOptions | undefined;
}): (url: string) => PeerLimits {
  const byOrigin = new Map<string, PeerLimits>();
  const max = options.maxConcurrent ?? Number.POSITIVE_INFINITY;
  return (url) => {
    const origin = originOf(url);
    let limits = byOrigin.get(origin);
    if (limits) return limits;
    let active = 0;
    const queue: Waiter[] = [];
    limits = {
      origin,
      breaker: options.breaker ? createCircuitBreaker(options.breaker) : undefined,
      acquire(signal) {
        if (active < max) {
          active++;
          return undefined;
        }
        if (signal?.aborted) return Promise.reject(new A2AAbortError({ cause: signal.reason }));
        return new Promise<void>((resolve, reject) => {
          const waiter: Waiter = { resolve, signal, onAbort: undefined };
          if (signal) {
            waiter.onAbort = () => {
              const index = queue.indexOf(waiter);
              if (index !== -1) queue.splice(index, 1);
              reject(new A2AAbortError({ cause: signal.reason }));
            };
            signal.addEventListener('abort', waiter.onAbort, { once: true });
          }
          queue.push(waiter);
        });
      },
      release() {
        const next = queue.shift();
        if (!next) {
          active--;
          return;
        }
        // The slot passes straight to the next caller in line.
        if (next.onAbort) next.signal?.removeEventListener('abort', next.onAbort);
        next.resolve();
      },
    };
    byOrigin.set(origin, limits);
    return limits;
  };
}
