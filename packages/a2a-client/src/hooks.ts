// Auth and interceptors, a chunk loaded by the first call of a client that has them (decision 0052):
// clients without auth or interceptors never download it. It imports nothing at run time: what it
// needs from the initial code comes as arguments, so that bundlers do not cut a chunk shared with
// it (decision 0038).
import type { A2AMethod } from '@a2aplane/a2a-types';
import type { A2ATransportError } from './errors.js';
import type { HttpCall, HttpContext, HttpResponse } from './http.js';
import type { CallOutcome, Interceptors, OutgoingCall, OutgoingRequest } from './interceptors.js';

/** The HTTP code the hooked path uses (`http.ts`). */
export interface HttpHookKit {
  /** One request; `before` builds the hooked request under the call's timer, before ky sees it. */
  sendOnce(context: HttpContext, call: HttpCall, before: () => Promise<OutgoingRequest>): Promise<HttpResponse>;
  A2ATransportError: typeof A2ATransportError;
}

/**
 * `sendHttp` with auth or HTTP-level interceptors: auth and `beforeRequest` change a copy of the
 * request (URL, `Headers`, body) per attempt; `afterResponse` sees the status and headers; a 401 is
 * handed to `auth.onUnauthorized` once, and the request is sent again if it says so.
 */
export async function sendHooked(context: HttpContext, call: HttpCall, kit: HttpHookKit): Promise<HttpResponse> {
  const { auth, interceptors } = context;
  let authRetried = false;
  for (;;) {
    let request: OutgoingRequest | undefined;
    const http = await kit.sendOnce(context, call, async () => {
      request = { method: call.method, url: new URL(call.url), headers: new Headers(call.headers), body: call.body };
      await auth?.apply(request);
      await interceptors?.beforeRequest?.(request);
      return request;
    });
    const { response } = http;
    try {
      await interceptors?.afterResponse?.({ request: request as OutgoingRequest, status: response.status, headers: response.headers });
    } catch (error) {
      http.release();
      await response.body?.cancel().catch(() => undefined);
      throw error;
    }
    if (response.status === 401 && !authRetried && auth?.onUnauthorized) {
      authRetried = true;
      await response.body?.cancel().catch(() => undefined);
      http.release();
      if (await auth.onUnauthorized()) continue;
      throw new kit.A2ATransportError(`HTTP 401 from ${call.url}`, { status: 401, url: call.url });
    }
    return http;
  }
}

/** A call's `beforeCall` / `afterCall` and the client's calls they wrap (`client.ts`). */
export interface CallHooks {
  beforeCall: Interceptors['beforeCall'];
  afterCall: Interceptors['afterCall'];
  checkObject(name: string, value: unknown): void;
}

/** Runs the `beforeCall` hooks; returns the call (params and headers as the hooks left them) and the options to use. */
async function intercept<Options extends { headers?: Record<string, string> }>(
  hooks: CallHooks,
  method: A2AMethod,
  params: unknown,
  callOptions: Options,
  streaming: boolean,
): Promise<{ call: OutgoingCall; callOptions: Options }> {
  hooks.checkObject('params', params);
  const call: OutgoingCall = { method, params: params as Record<string, unknown>, headers: { ...callOptions.headers }, streaming };
  await hooks.beforeCall?.(call);
  return { call, callOptions: { ...callOptions, headers: call.headers } };
}

const outcome = (call: OutgoingCall, ok: boolean, value: unknown): CallOutcome =>
  ok ? { ...call, ok, result: value } : { ...call, ok, error: value };

/** A unary call inside its hooks: `afterCall` sees the result or the error, which the caller then gets. */
export async function invokeHooked<Options extends { headers?: Record<string, string> }, R>(
  hooks: CallHooks,
  method: A2AMethod,
  params: unknown,
  callOptions: Options,
  send: (params: Record<string, unknown>, callOptions: Options) => Promise<R>,
): Promise<R> {
  const intercepted = await intercept(hooks, method, params, callOptions, false);
  let result: R;
  try {
    result = await send(intercepted.call.params, intercepted.callOptions);
  } catch (error) {
    await hooks.afterCall?.(outcome(intercepted.call, false, error));
    throw error;
  }
  await hooks.afterCall?.(outcome(intercepted.call, true, result));
  return result;
}

/** A stream inside its hooks: `afterCall` runs once, when the stream ends, fails or is left early. */
export async function* streamHooked<Options extends { headers?: Record<string, string> }, T>(
  hooks: CallHooks,
  method: A2AMethod,
  params: unknown,
  callOptions: Options,
  stream: (params: Record<string, unknown>, callOptions: Options) => AsyncIterable<T>,
): AsyncGenerator<T, void, undefined> {
  const intercepted = await intercept(hooks, method, params, callOptions, true);
  let failed = false;
  try {
    yield* stream(intercepted.call.params, intercepted.callOptions);
  } catch (error) {
    failed = true;
    await hooks.afterCall?.(outcome(intercepted.call, false, error));
    throw error;
  } finally {
    // Also when the consumer stops early: the stream ended without an error.
    if (!failed) await hooks.afterCall?.(outcome(intercepted.call, true, undefined));
  }
}
