/**
 * Set by a binding on its `CoreRequest` when it can tell that the caller went away without making
 * an `AbortSignal` per request (the node:http binding listens for the response's `close`, the gRPC
 * binding of `@a2aplane/a2a-grpc` for the call's `cancelled`). `CoreRequest.signal` stays the
 * simple way, and it keeps working. A registered symbol, so a binding loaded from the other module
 * format (ESM next to CJS) still finds it.
 */
export const ON_CALLER_GONE: unique symbol = Symbol.for('@a2aplane/a2a-server-express.onCallerGone');

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
