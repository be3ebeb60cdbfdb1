import { SseEventTooLargeError } from '../errors.js';

/** One dispatched Server-Sent Event (WHATWG HTML §9.2.6). */
export interface ServerSentEvent {
  data: string;
  /** `event:` field; `undefined` means the default `message` type. */
  event: string | undefined;
  /** The last event id in effect when this event was dispatched. */
  id: string | undefined;
  /** `retry:` reconnection time in ms, when this event carried one. */
  retry: number | undefined;
}

export interface ParseServerSentEventsOptions {
  /** Largest event (sum of its line bytes) accepted; bigger throws SseEventTooLargeError. Default 1 MiB. */
  maxEventBytes?: number;
  /** Called for every chunk read, comments (heartbeats) included: a sign of life of the stream. */
  onChunk?: () => void;
}

type Core = typeof import('./parse-sse-core.js');
let core: Promise<Core> | undefined;
const loadCore = (): Promise<Core> => {
  core ??= import('./parse-sse-core.js');
  return core;
};

/**
 * Parses a byte stream of `text/event-stream` into events. Handles chunk boundaries anywhere
 * (also inside a multi-byte character or a CRLF pair), comments, multi-line `data:` and the
 * `id:`/`event:`/`retry:` fields. Leaving the loop early cancels the underlying reader.
 * The parser loads on the first `next()`; if it cannot load, that `next()` throws and the stream
 * is cancelled.
 */
export async function* parseServerSentEvents(
  stream: ReadableStream<Uint8Array>,
  options: ParseServerSentEventsOptions = {},
): AsyncGenerator<ServerSentEvent, void, undefined> {
  let parser: Core;
  try {
    parser = await loadCore();
  } catch (error) {
    core = undefined;
    await stream.cancel().catch(() => undefined);
    throw error;
  }
  yield* parser.parseEvents(stream, options, (maxEventBytes) => new SseEventTooLargeError(maxEventBytes));
}
