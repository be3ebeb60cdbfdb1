// The reading side of a stream request, a chunk loaded by the first stream (stream.ts starts the
// load when the request is sent), with the SSE parser in it. It imports nothing else at run time:
// what it needs from the rest of the client comes in `kit`, so that bundlers do not cut a chunk
// shared with the initial code (decision 0038), and unary-only pages never download it (decision 0050).
import type { A2ATransportError, SseEventTooLargeError } from '../errors.js';
import type { HttpCall, HttpResponse, readText, toClientError } from '../http.js';
import { parseEvents } from '../sse/parse-sse-core.js';
import type { FrameDecoder, RejectBody } from './stream.js';
import type { StreamItem, TransportCallOptions } from './types.js';

export interface EventStreamKit {
  readText: typeof readText;
  toClientError: typeof toClientError;
  A2ATransportError: typeof A2ATransportError;
  SseEventTooLargeError: typeof SseEventTooLargeError;
}

// MEDIA_TYPE_EVENT_STREAM of a2a-types, spelled out: this chunk imports nothing.
const EVENT_STREAM = 'text/event-stream';

/**
 * Checks the response of a stream request (an error body or a response that is not an event stream
 * throws) and turns the event stream into items; stopping the loop cancels the body.
 */
export async function readEventStream(
  http: HttpResponse,
  call: HttpCall,
  rejectBody: RejectBody,
  decode: FrameDecoder,
  options: Pick<TransportCallOptions, 'maxEventBytes' | 'onActivity'>,
  kit: EventStreamKit,
): Promise<AsyncIterable<StreamItem>> {
  const { response } = http;
  const contentType = response.headers.get('Content-Type') ?? '';
  if (!response.ok || !contentType.includes(EVENT_STREAM)) {
    await rejectBody(await kit.readText(http, call), response);
    throw new kit.A2ATransportError(`Expected an event stream from ${call.url}, got ${contentType || 'no content type'}`, {
      status: response.status,
      url: call.url,
    });
  }
  return items(http, call, decode, options, kit);
}

async function* items(
  http: HttpResponse,
  call: HttpCall,
  decode: FrameDecoder,
  options: Pick<TransportCallOptions, 'maxEventBytes' | 'onActivity'>,
  kit: EventStreamKit,
): AsyncGenerator<StreamItem, void, undefined> {
  const body = http.response.body;
  if (!body) {
    http.release();
    throw new kit.A2ATransportError(`Empty event stream from ${call.url}`, { url: call.url, retryable: true });
  }
  let finished = false;
  const events = parseEvents(
    body,
    {
      ...(options.maxEventBytes === undefined ? {} : { maxEventBytes: options.maxEventBytes }),
      ...(options.onActivity ? { onChunk: options.onActivity } : {}),
    },
    (maxEventBytes) => new kit.SseEventTooLargeError(maxEventBytes),
  );
  try {
    for (;;) {
      let next: IteratorResult<{ data: string; id: string | undefined }>;
      try {
        next = await events.next();
      } catch (error) {
        if (kit.SseEventTooLargeError.isInstance(error)) throw error;
        throw kit.toClientError(error, call, http.timedOut());
      }
      if (next.done) break;
      const decoded = decode(next.value.data);
      yield { data: decoded instanceof Promise ? await decoded : decoded, id: next.value.id };
    }
    finished = true;
  } finally {
    // A consumer that stopped early: close the connection (the client also aborts the signal).
    // (`return()` cancels the parser's reader, which closes the response body.)
    if (!finished) await events.return(undefined).catch(() => undefined);
    http.release();
  }
}
