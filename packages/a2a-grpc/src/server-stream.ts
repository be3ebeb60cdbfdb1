import { SseEventTooLargeError } from '@a2aplane/a2a-client';
import type { ClientReadableStream, Metadata, ServiceError } from '@grpc/grpc-js';
import { type GrpcOperation, decodeToJson, readEventId } from './codec.js';
import { undecodableResponse } from './call-errors.js';
import { reportOpened } from './response-info.js';
import type { GrpcStreamItem, GrpcTransportCallOptions } from './transport-options.js';

/** Items buffered before the socket is paused, and the level under which reading resumes. */
const PAUSE_AT = 64;
const RESUME_BELOW = 16;

/**
 * The items of a server-streaming call as an async iterable, resolved once the agent sent its
 * response headers (or the first event), so a refused call rejects here. Reading pauses while the
 * consumer has items to take (backpressure); an item over `maxEventBytes` or one that does not
 * decode fails the stream; leaving the loop early cancels the call.
 */
export async function readServerStream(
  call: ClientReadableStream<Buffer>,
  operation: GrpcOperation,
  options: GrpcTransportCallOptions,
  toError: (error: ServiceError) => Error,
): Promise<AsyncIterable<GrpcStreamItem>> {
  const onAbort = (): void => call.cancel();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const release = (): void => options.signal?.removeEventListener('abort', onAbort);
  const items: GrpcStreamItem[] = [];
  let failure: unknown;
  let ended = false;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const waiter = wake;
    wake = undefined;
    waiter?.();
  };
  const maxBytes = options.maxEventBytes;
  call.on('metadata', () => options.onActivity?.());
  call.on('data', (bytes: Buffer) => {
    if (failure !== undefined) return;
    if (maxBytes !== undefined && bytes.byteLength > maxBytes) {
      failure = new SseEventTooLargeError(maxBytes);
      call.cancel();
      notify();
      return;
    }
    try {
      items.push({ data: decodeToJson(operation.output, bytes), id: readEventId(bytes) });
    } catch (cause) {
      failure = undecodableResponse(operation, cause);
      call.cancel();
    }
    if (items.length >= PAUSE_AT) call.pause();
    notify();
  });
  call.on('error', (error: ServiceError) => {
    if (failure === undefined) failure = toError(error);
    ended = true;
    notify();
  });
  call.on('end', () => {
    ended = true;
    notify();
  });
  const opened = await new Promise<Metadata | undefined>((resolve) => {
    call.once('metadata', (received: Metadata) => resolve(received));
    call.once('data', () => resolve(undefined));
    call.once('error', () => resolve(undefined));
    call.once('end', () => resolve(undefined));
  });
  if (items.length === 0 && ended && failure !== undefined) {
    release();
    throw failure;
  }
  reportOpened(options, opened, () => {
    release();
    call.cancel();
  });
  return {
    [Symbol.asyncIterator]: (): AsyncIterator<GrpcStreamItem> => ({
      next: async () => {
        for (;;) {
          const item = items.shift();
          if (item) {
            if (items.length < RESUME_BELOW) call.resume();
            return { done: false, value: item };
          }
          if (ended) {
            release();
            if (failure !== undefined) {
              const error = failure;
              failure = undefined;
              throw error;
            }
            return { done: true, value: undefined };
          }
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
        }
      },
      return: async () => {
        release();
        if (!ended) call.cancel();
        ended = true;
        failure = undefined;
        return { done: true, value: undefined };
      },
    }),
  };
}
