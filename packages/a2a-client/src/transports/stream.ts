import { A2ATransportError, SseEventTooLargeError } from '../errors.js';
import { type HttpCall, type HttpResponse, toClientError } from '../http.js';
import { parseServerSentEvents } from '../sse/parse-sse.js';
import type { StreamItem, TransportCallOptions } from './types.js';

/** Frame decoder: returns the item's data, or throws an A2AError / A2ATransportError. */
type FrameDecoder = (data: string) => unknown;

/** Turns an SSE response into stream items; stopping the loop cancels the body. */
export async function* readEventStream(
  http: HttpResponse,
  call: HttpCall,
  decode: FrameDecoder,
  options: Pick<TransportCallOptions, 'maxEventBytes' | 'onActivity'>,
): AsyncGenerator<StreamItem, void, undefined> {
  const body = http.response.body;
  if (!body) {
    http.release();
    throw new A2ATransportError(`Empty event stream from ${call.url}`, { url: call.url, retryable: true });
  }
  let finished = false;
  const events = parseServerSentEvents(body, {
    ...(options.maxEventBytes === undefined ? {} : { maxEventBytes: options.maxEventBytes }),
    ...(options.onActivity ? { onChunk: options.onActivity } : {}),
  });
  try {
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
    // A consumer that stopped early: close the connection (the client also aborts the signal).
    // (`return()` cancels the parser's reader, which closes the response body.)
    if (!finished) await events.return(undefined).catch(() => undefined);
    http.release();
  }
}

export function invalidFrame(url: string, reason: string, cause?: unknown): A2ATransportError {
  return new A2ATransportError(`Invalid stream frame from ${url}: ${reason}`, { url, retryable: false, cause });
}
