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
 * This module is a chunk loaded by that probe, in Node only (fetch-follow.ts): browsers never load it.
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

/**
 * Whether `fetch` aborts on a FollowerSignal: a listener is registered at once, and after the
 * abort the pending fetch rejects with the abort's reason; the same for a `Request`. Never throws.
 */
export async function probe(fetch: GlobalFetch): Promise<boolean> {
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
