// The SSE parser proper. It imports nothing at run time, so bundlers that split chunks ship it in
// the chunks loaded on demand: with the stream reader (transports/event-stream.ts) for the client's
// streams, on its own for `parseServerSentEvents` (parse-sse.ts). Unary-only pages never download it.
import type { ParseServerSentEventsOptions, ServerSentEvent } from './parse-sse.js';

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

/** `parseServerSentEvents` (parse-sse.ts) itself; `tooLarge` makes its error. */
export async function* parseEvents(
  stream: ReadableStream<Uint8Array>,
  options: ParseServerSentEventsOptions,
  tooLarge: (maxEventBytes: number) => Error,
): AsyncGenerator<ServerSentEvent, void, undefined> {
  const maxEventBytes = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
  const { onChunk } = options;
  if (!Number.isFinite(maxEventBytes) || maxEventBytes <= 0) {
    throw new RangeError(`expected maxEventBytes to be a positive number, got ${maxEventBytes}`);
  }
  const reader = stream.getReader();
  const decoder = new TextDecoder('utf-8');
  let buffer = '';
  let skipLeadingLf = false;
  let firstChunk = true;
  let data: string[] = [];
  let eventType: string | undefined;
  let lastEventId: string | undefined;
  let retry: number | undefined;
  let eventBytes = 0;
  let done = false;

  const resetEvent = (): void => {
    data = [];
    eventType = undefined;
    retry = undefined;
    eventBytes = 0;
  };

  // Returns an event to dispatch, if the line completed one.
  const processLine = (line: string): ServerSentEvent | undefined => {
    if (line === '') {
      const hasData = data.length > 0;
      const event: ServerSentEvent = { data: data.join('\n'), event: eventType, id: lastEventId, retry };
      resetEvent();
      return hasData ? event : undefined;
    }
    eventBytes += utf8Length(line) + 1;
    if (eventBytes > maxEventBytes) throw tooLarge(maxEventBytes);
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        data.push(value);
        break;
      case 'event':
        eventType = value;
        break;
      case 'id':
        // A NUL in the id makes the field ignored (spec).
        if (!value.includes('\0')) lastEventId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) retry = Number(value);
        break;
      default:
        break;
    }
    return undefined;
  };

  try {
    while (!done) {
      const chunk = await reader.read();
      onChunk?.();
      let text: string;
      if (chunk.done) {
        done = true;
        text = decoder.decode();
      } else {
        text = decoder.decode(chunk.value, { stream: true });
      }
      if (firstChunk && text.length > 0) {
        firstChunk = false;
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      }
      if (skipLeadingLf && text.length > 0) {
        if (text[0] === '\n') text = text.slice(1);
        skipLeadingLf = false;
      }
      buffer += text;
      let start = 0;
      for (let i = 0; i < buffer.length; i++) {
        const ch = buffer[i];
        if (ch !== '\n' && ch !== '\r') continue;
        const line = buffer.slice(start, i);
        if (ch === '\r') {
          if (i + 1 < buffer.length) {
            if (buffer[i + 1] === '\n') i++;
          } else {
            // CR at the end of what we have: a following LF belongs to the same line break.
            skipLeadingLf = true;
          }
        }
        start = i + 1;
        const event = processLine(line);
        if (event) yield event;
      }
      buffer = buffer.slice(start);
      if (eventBytes + utf8Length(buffer) > maxEventBytes) throw tooLarge(maxEventBytes);
    }
    // An incomplete event at end of stream is discarded (spec).
  } finally {
    if (!done) {
      await reader.cancel().catch(() => undefined);
    }
    reader.releaseLock();
  }
}
