import { A2ATransportError } from './errors.js';
import type { HttpCall, HttpContext, HttpResponse } from './http-types.js';
import type { OutgoingRequest } from './interceptors.js';
import { sendOnce } from './send-once.js';

/**
 * `sendHttp` with auth or HTTP-level interceptors: auth and `beforeRequest` change a copy of the
 * request (URL, `Headers`, body) per attempt; `afterResponse` sees the status and headers; a 401 is
 * handed to `auth.onUnauthorized` once, and the request is sent again if it says so.
 */
export async function sendHooked(context: HttpContext, call: HttpCall): Promise<HttpResponse> {
  const { auth, interceptors } = context;
  let authRetried = false;
  for (;;) {
    let request: OutgoingRequest | undefined;
    const http = await sendOnce(context, call, async () => {
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
      throw new A2ATransportError(`HTTP 401 from ${call.url}`, { status: 401, url: call.url });
    }
    return http;
  }
}
