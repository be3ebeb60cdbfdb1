import { toClientError } from './http-errors.js';
import type { HttpCall, HttpContext, HttpResponse } from './http-types.js';
import { sendHooked } from './request-hooks.js';
import { sendOnce } from './send-once.js';

export { statusError, toClientError } from './http-errors.js';
export type { FetchLike, HttpCall, HttpContext, HttpResponse } from './http-types.js';

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

/**
 * Sends one HTTP request through ky: applies auth and interceptors (request-hooks.ts), enforces
 * `timeoutMs` when given, and turns fetch failures into our errors. Any status comes back as a response.
 */
export function sendHttp(context: HttpContext, call: HttpCall): Promise<HttpResponse> {
  // Not async: the common call returns sendOnce's promise as is, with no wrapper promise.
  if (call.signal?.aborted) return Promise.reject(toClientError(call.signal.reason, call, false));
  const { auth, interceptors } = context;
  if (auth !== undefined || interceptors?.beforeRequest !== undefined || interceptors?.afterResponse !== undefined) {
    return sendHooked(context, call);
  }
  return sendOnce(context, call);
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
