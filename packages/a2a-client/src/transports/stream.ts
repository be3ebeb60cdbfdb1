import { A2ATransportError } from '../errors.js';
import { type HttpCall, type HttpContext, sendHttp } from '../http.js';
import { loadStreaming } from '../load-streaming.js';
import type { FrameDecoder, RejectBody } from './event-stream.js';
import type { StreamItem, TransportCallOptions } from './types.js';

/**
 * Sends a stream request and reads its event stream. The streaming code (the reader and the SSE
 * parser) loads while the request is on its way, so that the load overlaps the round trip instead of
 * counting against the stream's idle timeout. A load that fails is a retryable transport failure (the
 * stream's usual failure path); the next stream loads again.
 */
export async function openEventStream(
  context: HttpContext,
  call: HttpCall,
  rejectBody: RejectBody,
  decode: FrameDecoder,
  options: TransportCallOptions,
): Promise<AsyncIterable<StreamItem>> {
  const loading = loadStreaming();
  loading.catch(() => undefined);
  const http = await sendHttp(context, call);
  let streaming: Awaited<typeof loading>;
  try {
    streaming = await loading;
  } catch (error) {
    http.release();
    await http.response.body?.cancel().catch(() => undefined);
    throw error;
  }
  return streaming.readEventStream(http, call, rejectBody, decode, options);
}

export function invalidFrame(url: string, reason: string, cause?: unknown): A2ATransportError {
  return new A2ATransportError(`Invalid stream frame from ${url}: ${reason}`, { url, retryable: false, cause });
}
