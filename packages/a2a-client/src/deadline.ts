import { A2AError } from '@a2aplane/a2a-types';
import { A2AAbortError, A2ATimeoutError } from './errors.js';

/**
 * One request's own abort signal: follows the caller's signal, fires after `timeoutMs`, and can be
 * re-armed as an idle timer for streams. The one place where timeouts are enforced, for every
 * transport: transports only see `signal`.
 */
export interface Deadline {
  readonly signal: AbortSignal;
  /** Whether the timer (not the caller) ended the request. */
  timedOut(): boolean;
  /** From now on, time out after `ms` without `touch()` (`undefined`: never). */
  idle(ms: number | undefined): void;
  /** Records activity for the idle timer (cheap: no timer work). */
  touch(): void;
  /** Aborts the request (a consumer stopped reading). */
  abort(): void;
  /** Stops the timer and detaches from the caller's signal. */
  release(): void;
  /** The error to report for `error`: a timeout, an abort, or `error` itself. */
  classify(error: unknown): unknown;
}

const now = (): number => (typeof performance === 'undefined' ? Date.now() : performance.now());

export function createDeadline(callerSignal: AbortSignal | undefined, timeoutMs: number | undefined): Deadline {
  const controller = new AbortController();
  let timedOutMs: number | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let idleMs: number | undefined;
  let lastActivity = 0;

  const fire = (ms: number): void => {
    timer = undefined;
    timedOutMs = ms;
    controller.abort(new A2ATimeoutError(ms));
  };
  // The idle timer is re-armed lazily: `touch()` only stamps the time, the timer checks it.
  const checkIdle = (): void => {
    const ms = idleMs as number;
    const left = lastActivity + ms - now();
    if (left <= 0) fire(ms);
    else timer = setTimeout(checkIdle, left);
  };
  const clear = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  const onCallerAbort = (): void => controller.abort(callerSignal?.reason);
  if (callerSignal) {
    if (callerSignal.aborted) controller.abort(callerSignal.reason);
    else callerSignal.addEventListener('abort', onCallerAbort, { once: true });
  }
  if (timeoutMs !== undefined) timer = setTimeout(() => fire(timeoutMs), timeoutMs);

  return {
    signal: controller.signal,
    timedOut: () => timedOutMs !== undefined,
    idle(ms) {
      clear();
      idleMs = ms;
      if (ms === undefined || controller.signal.aborted) return;
      lastActivity = now();
      timer = setTimeout(checkIdle, ms);
    },
    touch() {
      lastActivity = now();
    },
    abort: () => controller.abort(),
    release() {
      clear();
      callerSignal?.removeEventListener('abort', onCallerAbort);
    },
    classify(error) {
      // An error the agent sent arrived before any abort: it stands.
      if (A2AError.isInstance(error)) return error;
      if (A2ATimeoutError.isInstance(error) || A2AAbortError.isInstance(error)) {
        // A transport may report our own abort as an abort: the timer decides which it was.
        if (timedOutMs !== undefined && !A2ATimeoutError.isInstance(error)) return new A2ATimeoutError(timedOutMs, { cause: error });
        return error;
      }
      if (timedOutMs !== undefined) return new A2ATimeoutError(timedOutMs, { cause: error });
      if (callerSignal?.aborted) return new A2AAbortError({ cause: callerSignal.reason ?? error });
      if (controller.signal.aborted) return new A2AAbortError({ cause: error });
      return error;
    },
  };
}
