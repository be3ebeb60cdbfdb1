import { A2ATransportError, SseEventTooLargeError } from '../errors.js';
import { type HttpCall, type HttpResponse, toClientError } from '../http.js';
import { parseServerSentEvents } from '../sse/parse-sse.js';
import type { StreamItem } from './types.js';

/** Frame decoder: returns the item's data, or throws an A2AError / A2ATransportError. */
type FrameDecoder = (data: string) => unknown;

/** Turns an SSE response into stream items; stopping the loop aborts the request. */
export async function* readEventStream(
  http: HttpResponse,
  call: HttpCall,
  decode: FrameDecoder,
  maxEventBytes: number | undefined,
): AsyncGenerator<StreamItem, void, undefined> {
  const body = http.response.body;
  if (!body) {
    http.release();
    throw new A2ATransportError(`Empty event stream from ${call.url}`, { url: call.url, retryable: true });
  }
  let finished = false;
  try {
    const events = parseServerSentEvents(body, maxEventBytes === undefined ? {} : { maxEventBytes });
    for (;;) {
      let next: IteratorResult<{ data: string; id: string | undefined }>;
      try {
        next = await events.next();
      } catch (error) {
        if (SseEventTooLargeError.isInstance(error)) throw error;
        throw toClientError(error, call, http.timedOut());
      }
      if (next.done) break;
      const item = decode(next.value.data);
      yield { data: item, id: next.value.id };
    }
    finished = true;
  } finally {
    if (!finished) http.abort();
    http.release();
  }
}

export function invalidFrame(url: string, reason: string, cause?: unknown): A2ATransportError {
  return new A2ATransportError(`Invalid stream frame from ${url}: ${reason}`, { url, retryable: false, cause });
}
