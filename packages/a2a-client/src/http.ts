import ky, { HTTPError, TimeoutError } from 'ky';
import type { AuthProvider } from './auth.js';
import { A2AAbortError, A2ATimeoutError, A2ATransportError } from './errors.js';
import { parseRetryAfter } from './retry.js';

export type FetchLike = (input: Request | URL | string, init?: RequestInit) => Promise<Response>;

/** What a `beforeRequest` interceptor sees and may change. */
export interface OutgoingRequest {
  method: string;
  url: URL;
  headers: Headers;
  body: string | undefined;
}

/** What an `afterResponse` interceptor sees. */
export interface IncomingResponse {
  request: Readonly<OutgoingRequest>;
  status: number;
  headers: Headers;
}

export interface Interceptors {
  beforeRequest?: (request: OutgoingRequest) => void | Promise<void>;
  afterResponse?: (response: IncomingResponse) => void | Promise<void>;
}

export interface HttpContext {
  fetch: FetchLike | undefined;
  auth: AuthProvider | undefined;
  interceptors: Interceptors | undefined;
}

export interface HttpCall {
  method: 'GET' | 'POST' | 'DELETE';
  url: string;
  /** Header names in lower case. Copied into a `Headers` only when auth or an interceptor needs one. */
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Keep the timeout only until the response headers arrive (streams run as long as they need). */
  streaming?: boolean;
}

/** A copy of `headers` with lower-case names (later entries win), so that plain objects merge like `Headers`. */
export function lowerCaseHeaders(headers: Record<string, string> | undefined, into: Record<string, string> = {}): Record<string, string> {
  for (const name in headers) into[name.toLowerCase()] = headers[name] as string;
  return into;
}

export interface HttpResponse {
  response: Response;
  /** Stops the per-call timer and detaches from the caller's signal. */
  release(): void;
  /** Whether the call's timer fired, to tell a timeout from an abort. */
  timedOut(): boolean;
  /** Aborts the underlying request (used when a consumer stops reading a stream). */
  abort(): void;
}

function isAbortLike(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

/** Maps an error thrown while fetching or reading into one of our errors. */
export function toClientError(error: unknown, call: Pick<HttpCall, 'url' | 'signal' | 'timeoutMs'>, timedOut: boolean): Error {
  if (
    A2ATransportError.isInstance(error) ||
    A2ATimeoutError.isInstance(error) ||
    A2AAbortError.isInstance(error)
  ) {
    return error;
  }
  if (timedOut || error instanceof TimeoutError) return new A2ATimeoutError(call.timeoutMs ?? 0, { cause: error });
  if (call.signal?.aborted) return new A2AAbortError({ cause: call.signal.reason ?? error });
  if (error instanceof HTTPError) {
    return new A2ATransportError(`HTTP ${error.response.status} from ${call.url}`, {
      status: error.response.status,
      retryable: error.response.status >= 500 || error.response.status === 429,
      url: call.url,
      cause: error,
    });
  }
  if (isAbortLike(error)) return new A2AAbortError({ cause: error });
  return new A2ATransportError(`Network error calling ${call.url}`, { retryable: true, url: call.url, cause: error });
}

/**
 * Sends one HTTP request through ky: applies auth and interceptors, enforces the timeout,
 * and turns ky/fetch failures into our errors. Any status comes back as a response.
 *
 * The common call (no auth, no interceptor, no timeout, not a stream) takes the short way: the
 * headers go to ky as the plain object they are and the caller's signal is passed straight
 * through, with no `URL`, `Headers`, `AbortController`, listener or timer of our own.
 */
export async function sendHttp(context: HttpContext, call: HttpCall): Promise<HttpResponse> {
  const { signal } = call;
  if (signal?.aborted) throw new A2AAbortError({ cause: signal.reason });
  const { auth, interceptors } = context;
  const hooked = auth !== undefined || interceptors?.beforeRequest !== undefined || interceptors?.afterResponse !== undefined;
  const timeoutMs = call.timeoutMs !== undefined && call.timeoutMs > 0 ? call.timeoutMs : undefined;
  let authRetried = false;
  for (;;) {
    // Our own controller only when something besides the caller may end the request: the timer, or
    // a stream consumer that stops reading.
    const controller = timeoutMs !== undefined || call.streaming ? new AbortController() : undefined;
    let timedOut = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onCallerAbort: (() => void) | undefined;
    if (controller) {
      if (signal) {
        onCallerAbort = () => controller.abort(signal.reason);
        signal.addEventListener('abort', onCallerAbort, { once: true });
      }
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          timedOut = true;
          controller.abort(new A2ATimeoutError(timeoutMs));
        }, timeoutMs);
      }
    }
    const release = (): void => {
      if (timer !== undefined) clearTimeout(timer);
      if (onCallerAbort) signal?.removeEventListener('abort', onCallerAbort);
    };

    let request: OutgoingRequest | undefined;
    let response: Response;
    try {
      if (hooked) {
        request = { method: call.method, url: new URL(call.url), headers: new Headers(call.headers), body: call.body };
        await auth?.apply(request);
        await interceptors?.beforeRequest?.(request);
      }
      response = await ky(request?.url ?? call.url, {
        method: request?.method ?? call.method,
        headers: request?.headers ?? call.headers,
        body: request ? request.body : call.body,
        signal: controller?.signal ?? signal,
        retry: 0,
        timeout: false,
        throwHttpErrors: false,
        fetch: context.fetch,
      });
    } catch (error) {
      release();
      throw toClientError(error, call, timedOut);
    }
    if (call.streaming && response.ok) {
      // The stream may run for long; only the caller's signal ends it from now on.
      if (timer !== undefined) clearTimeout(timer);
    }
    if (request) {
      try {
        await interceptors?.afterResponse?.({ request, status: response.status, headers: response.headers });
      } catch (error) {
        release();
        await response.body?.cancel().catch(() => undefined);
        throw error;
      }
    }
    if (response.status === 401 && !authRetried && auth?.onUnauthorized) {
      authRetried = true;
      await response.body?.cancel().catch(() => undefined);
      release();
      if (await auth.onUnauthorized()) continue;
      throw new A2ATransportError(`HTTP 401 from ${call.url}`, { status: 401, url: call.url });
    }
    return {
      response,
      release,
      timedOut: () => timedOut,
      abort: () => controller?.abort(),
    };
  }
}

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
