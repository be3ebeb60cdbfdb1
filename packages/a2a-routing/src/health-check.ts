import type { AgentCard } from '@a2aplane/a2a-types';
import type { PeerPool } from './peer-pool.js';

export interface HealthCheckTimers {
  setTimeout: (callback: () => void, ms: number) => unknown;
  clearTimeout: (handle: never) => void;
}

export interface HealthCheckLoopOptions {
  intervalMs: number;
  /** Fetches (and, if you verify signatures, verifies) a peer's current card. A rejection counts as a failed check. */
  fetchCard: (peerId: string) => Promise<AgentCard>;
  /** Default the global `setTimeout` / `clearTimeout`. */
  timers?: HealthCheckTimers;
  /** Called with each failed check, for logging. */
  onError?: (peerId: string, error: unknown) => void;
}

export interface HealthCheckLoop {
  /** Runs one round now (every peer in parallel); resolves when it is done. */
  runOnce(): Promise<void>;
  /** Cancels the pending round; no timer is left behind and an in-flight round schedules nothing. */
  stop(): void;
}

/**
 * Refreshes every peer's card every `intervalMs` and feeds the breakers: a fetched card replaces
 * the old one and counts as a success, a failed fetch as a failure. Rounds never overlap: the next
 * one is scheduled when the previous has finished.
 */
export function createHealthCheckLoop(pool: PeerPool, options: HealthCheckLoopOptions): HealthCheckLoop {
  if (typeof options?.intervalMs !== 'number' || !(options.intervalMs > 0)) {
    throw new RangeError(`expected intervalMs to be a number > 0, got ${String(options?.intervalMs)}`);
  }
  if (typeof options.fetchCard !== 'function') throw new TypeError(`expected fetchCard to be a function, got ${typeof options.fetchCard}`);
  const timers: HealthCheckTimers = options.timers ?? {
    setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
    clearTimeout: (handle) => globalThis.clearTimeout(handle),
  };
  let stopped = false;
  let handle: unknown;

  const checkPeer = async (id: string): Promise<void> => {
    let card: AgentCard;
    try {
      card = await options.fetchCard(id);
    } catch (error) {
      if (pool.has(id)) pool.recordHealth(id, false);
      options.onError?.(id, error);
      return;
    }
    // A peer removed while its card was in flight stays removed.
    if (!pool.has(id)) return;
    try {
      pool.upsert(id, card);
    } catch (error) {
      // The pool's negotiator refused the new card: the pool dropped the peer.
      options.onError?.(id, error);
      return;
    }
    pool.recordHealth(id, true);
  };

  const runOnce = async (): Promise<void> => {
    await Promise.all(pool.ids().map(checkPeer));
  };

  const schedule = (): void => {
    if (stopped) return;
    handle = timers.setTimeout(() => {
      handle = undefined;
      runOnce().then(schedule, schedule);
    }, options.intervalMs);
  };

  schedule();
  return {
    runOnce,
    stop() {
      stopped = true;
      if (handle !== undefined) timers.clearTimeout(handle as never);
      handle = undefined;
    },
  };
}
