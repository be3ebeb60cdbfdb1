import { parseRetryAfter } from '@a2aplane/a2a-types';
import { A2AAbortError, A2ATimeoutError, A2ATransportError } from './errors.js';
import type { HttpCall } from './http-types.js';

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
