import { afterEach, describe, expect, it, vi } from 'vitest';
import { causedBy, loadFailure } from '../helpers/chunks.js';
import { cardFor, startServer, type TestServer, task, userMessage } from '../helpers/server.js';

// The SSE parser proper (parse-sse-core.ts) is a chunk loaded by the first stream. These tests load
// a fresh copy of the package with that chunk failing, as a browser does when the download fails.
const CORE = '../../src/sse/parse-sse-core.js';

const servers: TestServer[] = [];
afterEach(async () => {
  vi.doUnmock(CORE);
  vi.resetModules();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function freshPackageWithFailingParser(): Promise<typeof import('../../src/index.js')> {
  vi.resetModules();
  vi.doMock(CORE, () => {
    throw loadFailure;
  });
  return import('../../src/index.js');
}

describe('the SSE parser loaded on demand', () => {
  it('the first stream loads it and parses events', async () => {
    vi.resetModules();
    const { parseServerSentEvents } = await import('../../src/index.js');
    const body = new Response('id: 1\ndata: one\n\n').body as ReadableStream<Uint8Array>;
    const events = [];
    for await (const event of parseServerSentEvents(body)) events.push(event);
    expect(events).toEqual([{ data: 'one', event: undefined, id: '1', retry: undefined }]);
  });

  it('a failed load throws from the first next(), cancels the stream, and is retried by the next parse', async () => {
    const { parseServerSentEvents } = await freshPackageWithFailingParser();
    const cancelled = vi.fn();
    const body = new ReadableStream<Uint8Array>({ cancel: cancelled });
    const error = await parseServerSentEvents(body)
      .next()
      .catch((e: unknown) => e);
    expect(causedBy(error, loadFailure)).toBe(true);
    expect(cancelled).toHaveBeenCalledTimes(1);

    vi.doUnmock(CORE);
    const events = [];
    for await (const event of parseServerSentEvents(new Response('data: two\n\n').body as ReadableStream<Uint8Array>))
      events.push(event.data);
    expect(events).toEqual(['two']);
  });

  it("a client stream whose parser cannot load fails with the client's typed transport error", async () => {
    const { createA2AClient, A2ATransportError } = await freshPackageWithFailingParser();
    const server = await startServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      const { id } = JSON.parse(req.body) as { id: string };
      res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result: { task: task('t-1', 'TASK_STATE_COMPLETED') } })}\n\n`);
    });
    servers.push(server);
    const client = createA2AClient({ card: cardFor(server.url), retry: { retries: 0 }, resume: { maxAttempts: 0 } });
    const error = await (async () => {
      for await (const _event of client.sendStreamingMessage(userMessage())) return undefined;
      return undefined;
    })().catch((e: unknown) => e);
    expect(A2ATransportError.isInstance(error)).toBe(true);
    expect(causedBy(error, loadFailure)).toBe(true);
  });
});
