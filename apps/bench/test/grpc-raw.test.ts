import {
  constants,
  createServer,
  type Http2Server,
  type IncomingHttpHeaders,
  type ServerHttp2Session,
  type ServerHttp2Stream,
  type Settings,
} from 'node:http2';
import { afterEach, describe, expect, it } from 'vitest';
import type { H2GrpcClient } from '../src/lib/grpc-h2.js';
import { connectRawGrpc, type RawGrpcOptions } from '../src/lib/grpc-raw.js';

const PATH = '/lf.a2a.v1.A2AService/SendMessage';
const PLACEHOLDER = 'placeholder-0123456789abcdef';

/** A length-prefixed gRPC message. */
const framed = (message: Buffer): Buffer => {
  const out = Buffer.alloc(5 + message.length);
  out.writeUInt32BE(message.length, 1);
  message.copy(out, 5);
  return out;
};

interface Received {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

type Answer = (stream: ServerHttp2Stream, request: Received) => void;

/** A node:http2 server answering each stream (once its request body ended) as `answer` says. */
async function grpcServer(answer: Answer, settings: Settings = {}) {
  const received: Received[] = [];
  const sessions: ServerHttp2Session[] = [];
  const server = createServer({ settings });
  server.on('session', (session) => sessions.push(session));
  server.on('stream', (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      const request = { headers, body: Buffer.concat(chunks) };
      received.push(request);
      answer(stream, request);
    });
    stream.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  open.push(server);
  return { authority: `127.0.0.1:${port}`, received, sessions };
}

/** Replies with `messages` and then the trailers. */
function reply(stream: ServerHttp2Stream, messages: Buffer[], trailers: Record<string, string> = { 'grpc-status': '0' }): void {
  if (stream.destroyed) return;
  stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
  stream.on('wantTrailers', () => stream.sendTrailers(trailers));
  for (const message of messages) stream.write(framed(message));
  stream.end();
}

const echo: Answer = (stream, request) => reply(stream, [request.body.subarray(5)]);

const open: Http2Server[] = [];
const clients: H2GrpcClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  for (const server of open.splice(0)) server.close();
});

async function client(authority: string, options: RawGrpcOptions = {}): Promise<H2GrpcClient> {
  const message = Buffer.from(`id=${PLACEHOLDER};`, 'latin1');
  const connected = await connectRawGrpc(authority, { message, placeholder: PLACEHOLDER }, options);
  clients.push(connected);
  return connected;
}

describe('connectRawGrpc', () => {
  it('sends gRPC requests with the metadata and a fresh id each, and reads status 0 replies', async () => {
    const { authority, received } = await grpcServer(echo);
    const c = await client(authority, { metadata: { 'a2a-version': '1.0' } });
    const replies = await Promise.all(Array.from({ length: 40 }, () => c.call(PATH)));
    expect(replies.every((r) => r.status === 0 && r.messages.length === 1)).toBe(true);
    expect(received).toHaveLength(40);
    const [first] = received;
    expect(first?.headers).toMatchObject({
      ':method': 'POST',
      ':scheme': 'http',
      ':path': PATH,
      ':authority': authority,
      'content-type': 'application/grpc',
      te: 'trailers',
      'a2a-version': '1.0',
    });
    // The 5-byte prefix, then the message with the placeholder's tail replaced by a counter.
    expect(first?.body.readUInt32BE(1)).toBe(first!.body.length - 5);
    const ids = replies.map((r) => r.messages[0]?.toString('latin1'));
    expect(new Set(ids).size).toBe(40);
    expect(ids).toContain(`id=${PLACEHOLDER.slice(0, -16)}0000000000000001;`);
  });

  it('reads the status of a trailers-only answer, grpc-message and all', async () => {
    const { authority } = await grpcServer((stream) =>
      stream.respond(
        { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '5', 'grpc-message': 'task not found: a longer text' },
        { endStream: true },
      ),
    );
    const c = await client(authority);
    // Twice: the second answer's fields come from the dynamic table the first one filled.
    expect(await c.call(PATH)).toEqual({ status: 5, messages: [] });
    expect(await c.call(PATH)).toEqual({ status: 5, messages: [] });
  });

  it('reads a non-zero status from the trailers after messages', async () => {
    const { authority } = await grpcServer((stream, request) =>
      reply(stream, [request.body.subarray(5)], { 'grpc-status': '13', 'grpc-message': 'internal' }),
    );
    const reply1 = await (await client(authority)).call(PATH);
    expect(reply1.status).toBe(13);
  });

  it('fails a call whose stream the server resets, and goes on with the next', async () => {
    let calls = 0;
    const { authority } = await grpcServer((stream, request) => {
      calls += 1;
      if (calls === 1) stream.close(constants.NGHTTP2_CANCEL);
      else echo(stream, request);
    });
    const c = await client(authority);
    expect(await c.call(PATH)).toEqual({ status: -1, messages: [] });
    expect((await c.call(PATH)).status).toBe(0);
  });

  it('fails a reply without trailers, with a partial message, or with a status other than 200', async () => {
    const answers: Answer[] = [
      (stream, request) => {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' });
        stream.end(framed(request.body.subarray(5)));
      },
      (stream) => {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
        stream.end(framed(Buffer.from('cut short')).subarray(0, 8));
      },
      (stream) => stream.respond({ ':status': 503, 'grpc-status': '0' }, { endStream: true }),
    ];
    let next = 0;
    const { authority } = await grpcServer((stream, request) => answers[next++]?.(stream, request));
    const c = await client(authority);
    for (let i = 0; i < answers.length; i++) expect(await c.call(PATH)).toEqual({ status: -1, messages: [] });
  });

  it('keeps flow control going for replies larger than its windows', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024, 7);
    const { authority } = await grpcServer((stream) => reply(stream, [big, big.subarray(0, 100_000), Buffer.alloc(0)]));
    // A stream window of 64 KiB: every reply needs many WINDOW_UPDATEs from the client.
    const c = await client(authority, { receiveWindow: 65_535 });
    const replies = await Promise.all(Array.from({ length: 4 }, () => c.call(PATH)));
    for (const r of replies) {
      expect(r.status).toBe(0);
      expect(r.messages.map((m) => m.length)).toEqual([big.length, 100_000, 0]);
      expect(r.messages[0]?.equals(big)).toBe(true);
    }
  });

  it('honours the server’s SETTINGS (one stream at a time, small windows and frames) and answers its PINGs', async () => {
    const { authority, received, sessions } = await grpcServer(echo, {
      maxConcurrentStreams: 1,
      initialWindowSize: 10,
      maxFrameSize: 16_384,
    });
    const c = await client(authority);
    const replies = await Promise.all(Array.from({ length: 8 }, () => c.call(PATH)));
    expect(replies.every((r) => r.status === 0 && r.messages.length === 1)).toBe(true);
    // Each request arrived whole although the server let it in 10 octets at a time.
    expect(received.every((r) => r.body.length === 5 + `id=${PLACEHOLDER};`.length)).toBe(true);
    const [session] = sessions;
    const pinged = await new Promise<boolean>((resolve) => session?.ping((error) => resolve(error === null)));
    expect(pinged).toBe(true);
  });

  it('fails calls after the server’s GOAWAY, and every call when the connection drops', async () => {
    const { authority, sessions } = await grpcServer(echo);
    const c = await client(authority);
    expect((await c.call(PATH)).status).toBe(0);
    sessions[0]?.goaway(constants.NGHTTP2_NO_ERROR, 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await c.call(PATH)).toEqual({ status: -1, messages: [] });

    const hung = await grpcServer(() => undefined);
    const d = await client(hung.authority);
    const pending = Promise.all([d.call(PATH), d.call(PATH)]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    hung.sessions[0]?.destroy();
    expect(await pending).toEqual([
      { status: -1, messages: [] },
      { status: -1, messages: [] },
    ]);
  });
});
