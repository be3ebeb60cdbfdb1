/**
 * Set by a binding on its `CoreRequest` when it can tell that the caller went away without making
 * an `AbortSignal` per request (the node:http binding listens for the response's `close`). Not
 * exported from the package: `CoreRequest.signal` is the public way, and it keeps working.
 */
export const ON_CALLER_GONE: unique symbol = Symbol('a2aplane.onCallerGone');

export interface CallerGoneHook {
  /** Calls `listener` once if the caller goes away; returns the function that stops listening. */
  [ON_CALLER_GONE]?: (listener: () => void) => () => void;
}

const noop = (): void => undefined;

/** Calls `listener` once when the caller of `request` goes away; returns the function that stops listening. */
export function onCallerGone(request: { signal?: AbortSignal | undefined } & CallerGoneHook, listener: () => void): () => void {
  if (request[ON_CALLER_GONE] !== undefined) return request[ON_CALLER_GONE](listener);
  const signal = request.signal;
  if (signal === undefined) return noop;
  if (signal.aborted) {
    listener();
    return noop;
  }
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
}
