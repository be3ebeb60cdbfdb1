import ky from 'ky';
import type { AuthProvider } from './auth.js';
import { chunkLoader } from './chunk-loader.js';
import { createDeadline } from './deadline.js';
import { A2AAbortError, A2ATimeoutError, A2ATransportError } from './errors.js';
import type { HttpHookKit } from './hooks.js';
import type { Interceptors, OutgoingRequest } from './interceptors.js';
import { parseRetryAfter } from './retry.js';

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

/** A copy of `headers` with lower-case names (later entries win), so that plain objects merge like `Headers`. */
export function lowerCaseHeaders(headers: Record<string, string> | undefined, into: Record<string, string> = {}): Record<string, string> {
  for (const name in headers) into[name.toLowerCase()] = headers[name] as string;
  return into;
}

/**
 * Request headers as `{ ...base, ...extra }`, the same object on every call with the same `base` and
 * `extra` objects, so that sendHttp reuses the head ky built for it. `extra` is one of the caller's
 * constant objects (a transport has a handful: content type and accept per kind of call), so the
 * lookup is by identity, with no key to build per call. One per transport; the objects it returns
 * are never changed.
 */
export function createHeaderSets(): (
  base: Readonly<Record<string, string>>,
  extra: Readonly<Record<string, string>>,
) => Record<string, string> {
  const made = new WeakMap<object, Map<object, Record<string, string>>>();
  return (base, extra) => {
    let byExtra = made.get(base);
    if (!byExtra) {
      byExtra = new Map();
      made.set(base, byExtra);
    }
    let headers = byExtra.get(extra);
    if (!headers) {
      headers = { ...base, ...extra };
      byExtra.set(extra, headers);
    }
    return headers;
  };
}

export interface HttpResponse {
  response: Response;
  /** Stops the call's own timer (if `timeoutMs` was given) and detaches from the caller's signal. */
  release(): void;
  /** Whether the call's own timer fired, to tell a timeout from an abort. */
  timedOut(): boolean;
}

function isAbortLike(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

/** Maps an error thrown while fetching or reading into one of our errors. */
export function toClientError(error: unknown, call: Pick<HttpCall, 'url' | 'signal' | 'timeoutMs'>, timedOut: boolean): Error {
  if (A2ATransportError.isInstance(error) || A2ATimeoutError.isInstance(error) || A2AAbortError.isInstance(error)) {
    return error;
  }
  if (timedOut) return new A2ATimeoutError(call.timeoutMs ?? 0, { cause: error });
  // The client's own deadline aborts with an A2ATimeoutError as the reason.
  const reason: unknown = call.signal?.aborted ? call.signal.reason : undefined;
  if (A2ATimeoutError.isInstance(reason)) return reason;
  if (call.signal?.aborted) return new A2AAbortError({ cause: reason ?? error });
  if (isAbortLike(error)) return new A2AAbortError({ cause: error });
  return new A2ATransportError(`Network error calling ${call.url}`, { retryable: true, url: call.url, cause: error });
}

const nothingToRelease = (): void => undefined;
const neverTimedOut = (): boolean => false;

/** `globalThis.fetch`, looked up per call so that a stub installed later is used. */
const globalFetch: FetchLike = (input, init) => globalThis.fetch(input, init);

/** A request head as ky built it: normalised URL, method and headers. */
interface Head {
  url: string;
  method: string;
  headers: Headers;
}

/** The head ky built for one (method, URL) of a headers object; `headers` is never changed (fetch copies it). */
interface BuiltHead {
  method: string;
  url: string;
  built: Head;
}

/**
 * The last head ky built per headers object (one entry each, so a REST client whose URLs carry task
 * ids keeps no more than one). Transports pass the same headers object for every call with the same
 * headers, so a JSON-RPC client asks ky once per head instead of once per call.
 */
const builtHeads = new WeakMap<Record<string, string>, BuiltHead>();

/**
 * The auth and interceptor code, loaded by the first request of a context that has them (decision
 * 0052). A failed load is a retryable transport failure (nothing was sent); the next request loads again.
 */
export const loadHooks = chunkLoader(() => import('./hooks.js'), 'auth and interceptor code');

/**
 * Sends one HTTP request through ky: applies auth and interceptors (`hooks.ts`, loaded on demand),
 * enforces `timeoutMs` when given, and turns fetch failures into our errors. Any status comes back
 * as a response.
 */
export function sendHttp(context: HttpContext, call: HttpCall): Promise<HttpResponse> {
  // Not async: the common call returns sendOnce's promise as is, with no wrapper promise.
  if (call.signal?.aborted) return Promise.reject(toClientError(call.signal.reason, call, false));
  const { auth, interceptors } = context;
  if (auth !== undefined || interceptors?.beforeRequest !== undefined || interceptors?.afterResponse !== undefined) {
    return loadHooks().then((hooks) => hooks.sendHooked(context, call, HOOK_KIT));
  }
  return sendOnce(context, call);
}

/**
 * One request through ky, under `call.timeoutMs` when given; `before` (auth and interceptors) builds
 * the request to send instead of `call`, under that timer.
 *
 * ky builds the URL, method and headers of a bodiless `Request`; its `beforeRequest` hook sends that
 * with the body string and our signal through `fetch` and returns the response. Given the body, ky
 * would wrap it in a stream and tee it on every call, and it clones every request it sends itself
 * (for retries, which we do ourselves); the hook skips both. The common call (no auth, no
 * interceptor) hands ky the prebuilt plain headers, with no `URL` or `Headers` of ours, and a head ky
 * already built for the same headers object, method and URL is reused as built (decision 0029).
 */
async function sendOnce(context: HttpContext, call: HttpCall, before?: () => Promise<OutgoingRequest>): Promise<HttpResponse> {
  const timeoutMs = call.timeoutMs !== undefined && call.timeoutMs > 0 ? call.timeoutMs : undefined;
  const send = context.fetch ?? globalFetch;
  // Our own timer only when the caller of sendHttp asked for one (discovery); the client runs its
  // calls under its own deadline and passes its signal.
  const deadline = timeoutMs === undefined ? undefined : createDeadline(call.signal, timeoutMs);
  const signal = deadline?.signal ?? call.signal;
  // The client's calls have no timer here: shared functions, nothing to allocate per call.
  const release = deadline ? (): void => deadline.release() : nothingToRelease;
  const timedOut = deadline ? (): boolean => deadline.timedOut() : neverTimedOut;
  let response: Response;
  try {
    const request = before ? await before() : undefined;
    const body = request ? request.body : call.body;
    const sendBuilt = (built: Head): Promise<Response> =>
      send(
        built.url,
        body === undefined
          ? { method: built.method, headers: built.headers, signal }
          : { method: built.method, headers: built.headers, body, signal },
      );
    const cached = request ? undefined : builtHeads.get(call.headers);
    response =
      cached && cached.method === call.method && cached.url === call.url
        ? await sendBuilt(cached.built)
        : await ky(request?.url ?? call.url, {
            method: request?.method ?? call.method,
            headers: request?.headers ?? call.headers,
            retry: 0,
            timeout: false,
            throwHttpErrors: false,
            // ky hands over the request it built; we send it with the body and signal and return the
            // response, which ky then uses as is (its documented short-cut: no clone of the request).
            hooks: {
              beforeRequest: [
                (built) => {
                  const head: Head = { url: built.url, method: built.method, headers: built.headers };
                  if (!request) builtHeads.set(call.headers, { method: call.method, url: call.url, built: head });
                  return sendBuilt(head);
                },
              ],
            },
          });
  } catch (error) {
    release();
    throw toClientError(error, call, timedOut());
  }
  return { response, release, timedOut };
}

const HOOK_KIT: HttpHookKit = { sendOnce, A2ATransportError };

/** Reads the whole body as text, converting read failures (timeout mid-body, abort). */
export async function readText(http: HttpResponse, call: HttpCall): Promise<string> {
  try {
    return await http.response.text();
  } catch (error) {
    throw toClientError(error, call, http.timedOut());
  } finally {
    http.release();
  }
}

/** Parses JSON without throwing. */
export function tryParseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** The transport error for a bad status that carried no A2A error body. */
export function statusError(response: Response, url: string): A2ATransportError {
  const status = response.status;
  const retryAfterMs = parseRetryAfter(response.headers.get('Retry-After'));
  return new A2ATransportError(`HTTP ${status} from ${url}`, {
    status,
    retryable: status >= 500 || status === 429,
    url,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });
}
