import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { httpLoad, parseReply, serializeRequest, templateRequests } from '../src/lib/http-load.js';

const GOOD = '{"ok":true}';
const verify = (body: string) => body === GOOD;

/** A raw TCP server answering each request (one per connection at a time) as `answer` says. */
function rawServer(answer: (socket: Socket, request: string) => void): Promise<{ url: string; server: Server; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((socket) => {
    let buffered = '';
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      for (;;) {
        const headEnd = buffered.indexOf('\r\n\r\n');
        if (headEnd === -1) return;
        const length = Number(/content-length: (\d+)/i.exec(buffered.slice(0, headEnd))?.[1] ?? 0);
        if (buffered.length < headEnd + 4 + length) return;
        const request = buffered.slice(0, headEnd + 4 + length);
        buffered = buffered.slice(request.length);
        requests.push(request);
        answer(socket, request);
      }
    });
    socket.on('error', () => undefined);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      resolve({ url: `http://127.0.0.1:${port}`, server, requests });
    }),
  );
}

const reply = (status: number, body: string) =>
  `HTTP/1.1 ${status} X\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

let open: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => (open ? open.close(resolve) : resolve(undefined)));
  open = undefined;
});

async function run(answer: (socket: Socket, request: string) => void) {
  const { url, server, requests } = await rawServer(answer);
  open = server;
  const next = templateRequests(`${url}/a2a/jsonrpc`, (marker) => `{"id":"m-${marker}"}`);
  const result = await httpLoad({ url, next, verify, seconds: 0.3, connections: 2, timeoutMs: 1000 });
  return { result, requests };
}

describe('httpLoad', () => {
  it('counts valid 2xx replies, each request with its own id', async () => {
    const { result, requests } = await run((socket) => socket.write(reply(200, GOOD)));
    expect(result.total2xx).toBeGreaterThan(0);
    expect({ ...result, total2xx: 0 }).toMatchObject({ non2xx: 0, mismatches: 0, errors: 0, timeouts: 0, valid: true });
    const ids = requests.map((r) => /"id":"(m-\d+)"/.exec(r)?.[1]);
    expect(new Set(ids).size).toBe(requests.length);
    expect(requests[0]).toMatch(/^POST \/a2a\/jsonrpc HTTP\/1\.1\r\nhost: 127\.0\.0\.1:\d+\r\ncontent-length: 27\r\n/);
  });

  it('counts a 2xx reply whose body fails the check as a mismatch', async () => {
    const { result } = await run((socket) => socket.write(reply(200, '{"ok":false}')));
    expect(result.mismatches).toBeGreaterThan(0);
    expect(result).toMatchObject({ total2xx: 0, non2xx: 0, errors: 0, valid: false });
  });

  it('counts a non-2xx reply as non2xx', async () => {
    const { result } = await run((socket) => socket.write(reply(500, GOOD)));
    expect(result.non2xx).toBeGreaterThan(0);
    expect(result).toMatchObject({ total2xx: 0, mismatches: 0, errors: 0, valid: false });
  });

  it('counts a socket closed with a request in flight as an error and reconnects', async () => {
    const { result, requests } = await run((socket) => socket.destroy());
    expect(result.errors).toBeGreaterThan(2);
    expect(requests.length).toBeGreaterThan(2);
    expect(result).toMatchObject({ total2xx: 0, non2xx: 0, mismatches: 0, valid: false });
  });

  it('reads chunked replies and replies split across packets', async () => {
    const { result } = await run((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n4\r\n{"ok');
      setImmediate(() => socket.write('\r\n7\r\n":true}\r\n0\r\n\r\n'));
    });
    expect(result.total2xx).toBeGreaterThan(0);
    expect(result).toMatchObject({ non2xx: 0, mismatches: 0, errors: 0, valid: true });
  });
});

describe('parseReply', () => {
  it('waits for the whole body and reports the bytes it used', () => {
    const whole = Buffer.from(reply(200, GOOD) + reply(404, ''), 'latin1');
    expect(parseReply(whole.subarray(0, whole.indexOf('{') + 3))).toBeUndefined();
    const first = parseReply(whole);
    expect(first?.status).toBe(200);
    expect(first?.body.toString()).toBe(GOOD);
    expect(parseReply(whole.subarray(first?.length))?.status).toBe(404);
  });

  it('refuses what is not an HTTP/1.x status line', () => {
    expect(() => parseReply(Buffer.from('SSH-2.0 hello\r\n\r\n'))).toThrow(/bad status line/);
  });
});

describe('serializeRequest', () => {
  it('counts Content-Length in bytes, not characters', () => {
    expect(serializeRequest('http://h:1/p', 'é', { a: 'b' }).toString('utf8')).toBe(
      'POST /p HTTP/1.1\r\nhost: h:1\r\ncontent-length: 2\r\na: b\r\n\r\né',
    );
  });
});
