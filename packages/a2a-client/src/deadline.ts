import { isA2AError } from '@a2aplane/a2a-types';
import { A2AAbortError, A2ATimeoutError } from './errors.js';

/**
 * One request's own abort signal: follows the caller's signal, fires after `timeoutMs`, and can be
 * re-armed as an idle timer for streams. The one place where timeouts are enforced, for every
 * transport: transports only see `signal`.
 */
interface Deadline {
  /** The request's signal (a real `AbortSignal`), made on first use. */
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

// A class, not a closure bag: one of these is made per call, so its methods live on the prototype.
// The AbortController is made only when someone asks for `signal` (a call without a timer never does).
class RequestDeadline implements Deadline {
  #controller: AbortController | undefined;
  /** Why the request was aborted; `undefined` while it was not. */
  #reason: unknown;
  readonly #callerSignal: AbortSignal | undefined;
  #timedOutMs: number | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #idleMs: number | undefined;
  #lastActivity = 0;
  readonly #onCallerAbort: (() => void) | undefined;

  constructor(callerSignal: AbortSignal | undefined, timeoutMs: number | undefined) {
    this.#callerSignal = callerSignal;
    if (callerSignal) {
      if (callerSignal.aborted) this.#abortWith(callerSignal.reason);
      else {
        this.#onCallerAbort = () => this.#abortWith(callerSignal.reason);
        callerSignal.addEventListener('abort', this.#onCallerAbort, { once: true });
      }
    }
    // No closure per call: the timer gets the deadline and the delay as arguments.
    if (timeoutMs !== undefined && this.#reason === undefined)
      this.#timer = setTimeout(RequestDeadline.#onTimer, timeoutMs, this, timeoutMs);
  }

  get signal(): AbortSignal {
    let controller = this.#controller;
    if (!controller) {
      controller = new AbortController();
      this.#controller = controller;
      if (this.#reason !== undefined) controller.abort(this.#reason);
    }
    return controller.signal;
  }

  #abortWith(reason: unknown): void {
    if (this.#reason !== undefined) return;
    // As AbortController.abort() does without a reason.
    this.#reason = reason === undefined ? new DOMException('This operation was aborted', 'AbortError') : reason;
    this.#controller?.abort(this.#reason);
  }

  static #onTimer(deadline: RequestDeadline, ms: number): void {
    deadline.#fire(ms);
  }

  #fire(ms: number): void {
    this.#timer = undefined;
    this.#timedOutMs = ms;
    this.#abortWith(new A2ATimeoutError(ms));
  }

  // The idle timer is re-armed lazily: `touch()` only stamps the time, the timer checks it.
  #checkIdle(): void {
    const ms = this.#idleMs as number;
    const left = this.#lastActivity + ms - Date.now();
    if (left <= 0) this.#fire(ms);
    else this.#timer = setTimeout(() => this.#checkIdle(), left);
  }

  #clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  timedOut(): boolean {
    return this.#timedOutMs !== undefined;
  }

  idle(ms: number | undefined): void {
    this.#clear();
    this.#idleMs = ms;
    if (ms === undefined || this.#reason !== undefined) return;
    this.#lastActivity = Date.now();
    this.#timer = setTimeout(() => this.#checkIdle(), ms);
  }

  touch(): void {
    this.#lastActivity = Date.now();
  }

  abort(): void {
    this.#abortWith(undefined);
  }

  release(): void {
    this.#clear();
    if (this.#onCallerAbort) this.#callerSignal?.removeEventListener('abort', this.#onCallerAbort);
  }

  classify(error: unknown): unknown {
    // An error the agent sent arrived before any abort: it stands.
    if (isA2AError(error)) return error;
    const timedOutMs = this.#timedOutMs;
    if (A2ATimeoutError.isInstance(error) || A2AAbortError.isInstance(error)) {
      // A transport may report our own abort as an abort: the timer decides which it was.
      if (timedOutMs !== undefined && !A2ATimeoutError.isInstance(error)) return new A2ATimeoutError(timedOutMs, { cause: error });
      return error;
    }
    if (timedOutMs !== undefined) return new A2ATimeoutError(timedOutMs, { cause: error });
    if (this.#callerSignal?.aborted) return new A2AAbortError({ cause: this.#callerSignal.reason ?? error });
    if (this.#reason !== undefined) return new A2AAbortError({ cause: error });
    return error;
  }
}

export function createDeadline(callerSignal: AbortSignal | undefined, timeoutMs: number | undefined): Deadline {
  return new RequestDeadline(callerSignal, timeoutMs);
}
