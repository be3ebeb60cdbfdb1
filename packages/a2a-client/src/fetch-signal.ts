/**
 * A cheaper abort signal for Node's global `fetch` (decision 0053).
 *
 * Node's fetch (undici) makes every `Request` follow the `signal` it is given. For a real
 * `AbortSignal` that costs a fresh `AbortController` of ours, an `abort` listener on an
 * `AbortSignal` and `setMaxListeners` on it: about 40 k instructions per call, the largest single
 * item between our client and a bare `fetch`. undici accepts any object shaped like a signal
 * (`aborted`, `reason`, `addEventListener`), and aborts the request when its `abort` listener is
 * called, as it does for a real one. Browsers refuse such an object, and another fetch might accept
 * it and ignore it, so a `FollowerSignal` goes only to the global fetch function a probe has shown
 * to abort on one; any other fetch, and every fetch until the probe has answered, gets a real signal.
 */

type AbortListener = (this: FollowerSignal, event: { type: 'abort'; target: FollowerSignal }) => void;

const NO_LISTENERS: readonly never[] = [];

/**
 * The `signal` handed to a probed global fetch: what undici reads of a signal, nothing more. The
 * owner (a deadline) calls `fire` to abort; listeners are called with the signal as `this`, as an
 * `EventTarget` calls them (undici's listener reads `this.reason`).
 */
export class FollowerSignal {
  aborted = false;
  reason: unknown = undefined;
  /**
   * Read by Node's `events.getMaxListeners` (with `getMaxListeners` and `listeners` below), which
   * undici calls on every signal: without them those helpers throw, and undici catches, an error
   * with a stack trace per call.
   */
  readonly _maxListeners = 1500;
  #listeners: AbortListener[] | undefined;

  addEventListener(type: string, listener: unknown): void {
    if (type !== 'abort' || typeof listener !== 'function') return;
    if (this.aborted) return;
    this.#listeners ??= [];
    this.#listeners.push(listener as AbortListener);
  }

  removeEventListener(type: string, listener: unknown): void {
    const list = this.#listeners;
    if (type !== 'abort' || !list) return;
    const index = list.indexOf(listener as AbortListener);
    if (index !== -1) list.splice(index, 1);
  }

  getMaxListeners(): number {
    return this._maxListeners;
  }

  listeners(): readonly never[] {
    return NO_LISTENERS;
  }

  /** How many `abort` listeners are registered (the probe checks that fetch registered one). */
  get listenerCount(): number {
    return this.#listeners?.length ?? 0;
  }

  /** Aborts: sets `aborted` and `reason`, then calls each listener once. */
  fire(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const list = this.#listeners;
    this.#listeners = undefined;
    if (!list) return;
    const event = { type: 'abort' as const, target: this };
    for (const listener of list) {
      try {
        listener.call(this, event);
      } catch {
        // As an EventTarget does: one listener's failure does not stop the others.
      }
    }
  }
}

type GlobalFetch = typeof globalThis.fetch;

/** The global fetch function the probe found to follow a FollowerSignal (`undefined`: none yet, or it does not). */
let following: GlobalFetch | undefined;
let probing: Promise<boolean> | undefined;

const isNode = (): boolean => (globalThis as { process?: { release?: { name?: unknown } } }).process?.release?.name === 'node';

/**
 * Whether `fetch` is this function: aborting a FollowerSignal given to it registers a listener at
 * once, and the pending fetch then rejects with the abort's reason; the same for a `Request`. Node
 * only (a browser refuses the object, and its `data:` fetch might be reported by a CSP). Never throws.
 */
async function probe(fetch: GlobalFetch): Promise<boolean> {
  if (!isNode() || typeof fetch !== 'function') return false;
  try {
    const reason = new Error('a2a-client: fetch signal probe');
    const signal = new FollowerSignal();
    const pending = fetch('data:,', { signal: signal as unknown as AbortSignal });
    pending.catch(() => undefined);
    const listened = signal.listenerCount > 0;
    signal.fire(reason);
    const rejectedWithReason = await pending.then(
      () => false,
      (error: unknown) => error === reason,
    );
    if (!listened || !rejectedWithReason) return false;
    const RequestClass = globalThis.Request;
    if (typeof RequestClass !== 'function') return false;
    const requestSignal = new FollowerSignal();
    const request = new RequestClass('data:,', { signal: requestSignal as unknown as AbortSignal });
    requestSignal.fire(reason);
    return request.signal.aborted && request.signal.reason === reason;
  } catch {
    return false;
  }
}

/**
 * Whether the current global fetch takes a FollowerSignal. The first question starts the probe and
 * answers `false`; once the probe has passed, `true` for as long as the global fetch is the very
 * function probed (a fetch installed later, a stub say, gets real signals).
 */
export function globalFetchFollows(): boolean {
  const current = globalThis.fetch;
  if (following !== undefined) return current === following;
  probing ??= probe(current).then((ok) => {
    if (ok) following = current;
    return ok;
  });
  return false;
}

/** The probe's answer (starting it if need be): for tests and the bench. */
export function probeGlobalFetch(): Promise<boolean> {
  globalFetchFollows();
  return probing as Promise<boolean>;
}
