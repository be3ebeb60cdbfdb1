// The reading side of a stream request: part of the streaming code, loaded with the first stream.
import { MEDIA_TYPE_EVENT_STREAM } from '@a2aplane/a2a-types';
import { A2ATransportError, SseEventTooLargeError } from '../errors.js';
import { type HttpCall, type HttpResponse, readText, toClientError } from '../http.js';
import { responseInfoOf } from '../response-info.js';
import { parseServerSentEvents } from '../sse/parse-sse.js';
import type { StreamItem, TransportCallOptions } from './types.js';

/** Frame decoder: returns the item's data, or throws (an A2ATransportError, or the A2AError an error frame carries). */
export type FrameDecoder = (data: string) => unknown;
/** Reads the body of a stream request that got no event stream: throws the error it carries, if any. */
export type RejectBody = (text: string, response: Response) => void;

/**
 * Checks the response of a stream request (an error body or a response that is not an event stream
 * throws) and turns the event stream into items; stopping the loop cancels the body.
 */
export async function readEventStream(
  http: HttpResponse,
  call: HttpCall,
  rejectBody: RejectBody,
  decode: FrameDecoder,
  options: Pick<TransportCallOptions, 'maxEventBytes' | 'onActivity' | 'onResponse'>,
): Promise<AsyncIterable<StreamItem>> {
  const { response } = http;
  const contentType = response.headers.get('Content-Type') ?? '';
  if (!response.ok || !contentType.includes(MEDIA_TYPE_EVENT_STREAM)) {
    rejectBody(await readText(http, call), response);
    throw new A2ATransportError(`Expected an event stream from ${call.url}, got ${contentType || 'no content type'}`, {
      status: response.status,
      url: call.url,
    });
  }
  if (options.onResponse) {
    try {
      options.onResponse(responseInfoOf(response.headers));
    } catch (error) {
      http.release();
      await response.body?.cancel().catch(() => undefined);
      throw error;
    }
  }
  return items(http, call, decode, options);
}

async function* items(
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
      yield { data: decode(next.value.data), id: next.value.id };
    }
    finished = true;
  } finally {
    // A consumer that stopped early: close the connection (the client also aborts the signal).
    // (`return()` cancels the parser's reader, which closes the response body.)
    if (!finished) await events.return(undefined).catch(() => undefined);
    http.release();
  }
}
