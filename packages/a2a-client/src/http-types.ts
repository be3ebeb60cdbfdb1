import type { AuthProvider } from './auth.js';
import type { Interceptors } from './interceptors.js';

export type FetchLike = (input: Request | URL | string, init?: RequestInit) => Promise<Response>;

export interface HttpContext {
  fetch: FetchLike | undefined;
  auth: AuthProvider | undefined;
  interceptors: Interceptors | undefined;
}

export interface HttpCall {
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  /**
   * Header names in lower case. Copied into a `Headers` only when auth or an interceptor needs one.
   * Never changed after the call: the head ky built for this object may be reused.
   */
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** A timer of sendHttp's own, for callers without a deadline (discovery); until the body is read. */
  timeoutMs?: number;
}

export interface HttpResponse {
  response: Response;
  /** Stops the call's own timer (if `timeoutMs` was given) and detaches from the caller's signal. */
  release(): void;
  /** Whether the call's own timer fired, to tell a timeout from an abort. */
  timedOut(): boolean;
}
