import ky from 'ky';
import { createDeadline } from './deadline.js';
import { toClientError } from './http-errors.js';
import type { FetchLike, HttpCall, HttpContext, HttpResponse } from './http-types.js';
import type { OutgoingRequest } from './interceptors.js';

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
export async function sendOnce(context: HttpContext, call: HttpCall, before?: () => Promise<OutgoingRequest>): Promise<HttpResponse> {
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
