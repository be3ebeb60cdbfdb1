import { createParser, type EventSourceMessage } from 'eventsource-parser';
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
  /**
   * Largest event accepted: its data in UTF-8 bytes, and what the parser holds of an unfinished line or
   * event in characters; bigger throws SseEventTooLargeError. Default 1 MiB.
   */
  maxEventBytes?: number;
  /** Called for every chunk read, comments (heartbeats) included: a sign of life of the stream. */
  onChunk?: () => void;
}

const DEFAULT_MAX_EVENT_BYTES = 1024 * 1024;

function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Line ends as LF before the parser sees them. SSE allows CRLF, LF and a bare CR; eventsource-parser
 * 3.1 loses an event whose closing blank line is a bare CR that ends a chunk (`data:x\r\r` then
 * `data:y`), so a CR at the end of a chunk is ended here, and an LF opening the next chunk (the rest
 * of a CRLF) is dropped.
 */
function createLineEndNormalizer(): (text: string) => string {
  let skipLeadingLf = false;
  return (text) => {
    if (text === '') return text;
    if (skipLeadingLf && text.charCodeAt(0) === 0x0a) text = text.slice(1);
    skipLeadingLf = text.charCodeAt(text.length - 1) === 0x0d;
    return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
  };
}

/**
 * Parses a byte stream of `text/event-stream` into events, with `eventsource-parser` (line ends,
 * chunk boundaries, comments, multi-line `data:`, `id:` / `event:` / `retry:`). On top of it: the last
 * event id stays in effect for later events, as in a browser's `EventSource`, and no event may grow
 * past `maxEventBytes` (the parser's own buffers are capped too, so a line that never ends is refused;
 * comments, such as heartbeats, count towards no event).
 * Leaving the loop early cancels the underlying reader.
 */
export async function* parseServerSentEvents(
  stream: ReadableStream<Uint8Array>,
  options: ParseServerSentEventsOptions = {},
): AsyncGenerator<ServerSentEvent, void, undefined> {
  const maxEventBytes = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
  if (!Number.isFinite(maxEventBytes) || maxEventBytes <= 0) {
    throw new RangeError(`expected maxEventBytes to be a positive number, got ${maxEventBytes}`);
  }
  const { onChunk } = options;
  const ready: ServerSentEvent[] = [];
  let lastEventId: string | undefined;
  let retry: number | undefined;
  let tooLarge = false;
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      if (utf8Length(message.data) > maxEventBytes) tooLarge = true;
      if (message.id !== undefined) lastEventId = message.id;
      ready.push({ data: message.data, event: message.event, id: lastEventId, retry });
      retry = undefined;
    },
    onRetry(interval) {
      retry = interval;
    },
    onError(error) {
      if (error.type === 'max-buffer-size-exceeded') tooLarge = true;
    },
    // The parser's buffers (an unfinished line, the data of the event so far) in characters, which are never
    // more than bytes: a cap on its memory, so a line that never ends is refused. Bytes are checked per event above.
    maxBufferSize: maxEventBytes,
  });
  const reader = stream.getReader();
  const decoder = new TextDecoder('utf-8');
  const toLf = createLineEndNormalizer();
  let done = false;
  try {
    while (!done) {
      const chunk = await reader.read();
      onChunk?.();
      if (chunk.done) {
        done = true;
        // An incomplete event at the end of the stream is discarded (spec).
        parser.feed(toLf(decoder.decode()));
      } else {
        parser.feed(toLf(decoder.decode(chunk.value, { stream: true })));
      }
      if (tooLarge) throw new SseEventTooLargeError(maxEventBytes);
      while (ready.length > 0) yield ready.shift() as ServerSentEvent;
    }
  } finally {
    if (!done) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
