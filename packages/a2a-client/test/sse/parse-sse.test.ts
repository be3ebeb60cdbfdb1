import { describe, expect, it } from 'vitest';
import { parseServerSentEvents, type ServerSentEvent, SseEventTooLargeError } from '../../src/index.js';

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

async function collect(chunks: Uint8Array[], maxEventBytes?: number): Promise<ServerSentEvent[]> {
  const out: ServerSentEvent[] = [];
  for await (const event of parseServerSentEvents(streamOf(chunks), maxEventBytes ? { maxEventBytes } : {})) out.push(event);
  return out;
}

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

const SAMPLE =
  ': comment line\r\n' +
  'id: 1\r\n' +
  'event: update\r\n' +
  'data: {"a":"héllo 🌍"}\r\n' +
  '\r\n' +
  'data: line one\n' +
  'data: line two\n' +
  'retry: 1500\n' +
  '\n' +
  'id: 3\r' +
  'data:no-space\r' +
  '\r' +
  'data: tail-without-blank-line';

const EXPECTED: ServerSentEvent[] = [
  { data: '{"a":"héllo 🌍"}', event: 'update', id: '1', retry: undefined },
  { data: 'line one\nline two', event: undefined, id: '1', retry: 1500 },
  { data: 'no-space', event: undefined, id: '3', retry: undefined },
];

describe('parseServerSentEvents (WHATWG HTML §9.2.6)', () => {
  it('parses a sample with comments, CRLF/CR/LF line ends, multi-line data, id, event and retry', async () => {
    expect(await collect([encode(SAMPLE)])).toEqual(EXPECTED);
  });

  it('gives the same events for a split at every byte offset (incl. inside multi-byte UTF-8 and CRLF)', async () => {
    const bytes = encode(SAMPLE);
    for (let offset = 0; offset <= bytes.length; offset++) {
      const events = await collect([bytes.slice(0, offset), bytes.slice(offset)]);
      expect(events, `split at ${offset}`).toEqual(EXPECTED);
    }
  });

  it('gives the same events when fed one byte at a time', async () => {
    const bytes = encode(SAMPLE);
    expect(await collect(Array.from(bytes, (b) => Uint8Array.of(b)))).toEqual(EXPECTED);
  });

  it('a blank line that is a bare CR ending a chunk still ends the event (the line ends reach the parser as LF)', async () => {
    expect((await collect([encode('data: x\r\r'), encode('data: y\r\r')])).map((e) => e.data)).toEqual(['x', 'y']);
    expect((await collect([encode('data: x\r'), encode('\ndata: y\r\n\r\n')])).map((e) => e.data)).toEqual(['x\ny']);
  });

  it('ignores events without data and strips a leading BOM', async () => {
    expect(await collect([encode('\uFEFFevent: ping\n\ndata: x\n\n')])).toEqual([
      { data: 'x', event: undefined, id: undefined, retry: undefined },
    ]);
  });

  it('throws SseEventTooLargeError for an event over maxEventBytes', async () => {
    const big = `data: ${'x'.repeat(200)}\n\n`;
    await expect(collect([encode(big)], 100)).rejects.toBeInstanceOf(SseEventTooLargeError);
  });

  it('throws SseEventTooLargeError for a line that never ends', async () => {
    const chunks = Array.from({ length: 20 }, () => encode('x'.repeat(10)));
    await expect(collect(chunks, 100)).rejects.toSatisfy((e: unknown) => SseEventTooLargeError.isInstance(e));
  });

  it('cancels the reader when the consumer breaks out of the loop', async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(encode('data: tick\n\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    let seen = 0;
    for await (const _ of parseServerSentEvents(stream)) {
      seen++;
      if (seen === 2) break;
    }
    expect(seen).toBe(2);
    expect(cancelled).toBe(true);
  });

  it('heartbeat comments count towards no event: many of them past maxEventBytes in all are fine', async () => {
    const heartbeats = Array.from({ length: 50 }, () => encode(': heartbeat\n\n'));
    expect((await collect([...heartbeats, encode('data: x\n\n')], 100)).map((e) => e.data)).toEqual(['x']);
  });

  it('an event whose data lines keep coming is refused once it passes maxEventBytes', async () => {
    const lines = Array.from({ length: 20 }, () => encode('data: xxxxxxxxxx\n'));
    await expect(collect(lines, 100)).rejects.toBeInstanceOf(SseEventTooLargeError);
  });

  it('rejects a non-positive maxEventBytes with RangeError', async () => {
    await expect(collect([encode('data: x\n\n')], -1)).rejects.toBeInstanceOf(RangeError);
  });
});
