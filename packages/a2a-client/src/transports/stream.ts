import { A2ATransportError, SseEventTooLargeError } from '../errors.js';
import { type HttpCall, type HttpContext, readText, sendHttp, toClientError } from '../http.js';
import type { EventStreamKit } from './event-stream.js';
import type { StreamItem, TransportCallOptions } from './types.js';

/**
 * Frame decoder: returns the item's data, or throws an A2ATransportError; an error frame is a
 * promise that rejects with its A2AError (the conversion loads on demand).
 */
export type FrameDecoder = (data: string) => unknown;
/** Reads the body of a stream request that got no event stream: throws (or rejects with) the error it carries, if any. */
export type RejectBody = (text: string, response: Response) => void | Promise<void>;

const KIT: EventStreamKit = { readText, toClientError, A2ATransportError, SseEventTooLargeError };

type Reader = typeof import('./event-stream.js');
let reader: Promise<Reader> | undefined;

/**
 * Sends a stream request and reads its event stream. The reading code and the SSE parser load
 * while the request is on its way, so that the load overlaps the round trip instead of counting
 * against the stream's idle timeout. A load that fails is a retryable transport failure (the
 * stream's usual failure path); the next stream loads again.
 */
export async function openEventStream(
  context: HttpContext,
  call: HttpCall,
  rejectBody: RejectBody,
  decode: FrameDecoder,
  options: TransportCallOptions,
): Promise<AsyncIterable<StreamItem>> {
  reader ??= import('./event-stream.js');
  const loading = reader;
  loading.catch(() => {
    if (reader === loading) reader = undefined;
  });
  const http = await sendHttp(context, call);
  let module: Reader;
  try {
    module = await loading;
  } catch (error) {
    http.release();
    await http.response.body?.cancel().catch(() => undefined);
    throw new A2ATransportError('Could not load the event stream reader', { cause: error, retryable: true, url: call.url });
  }
  return module.readEventStream(http, call, rejectBody, decode, options, KIT);
}

export function invalidFrame(url: string, reason: string, cause?: unknown): A2ATransportError {
  return new A2ATransportError(`Invalid stream frame from ${url}: ${reason}`, { url, retryable: false, cause });
}
