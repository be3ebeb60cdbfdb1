import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { a2aExpress } from '../src/express/index.js';
import { createA2AServer, createNodeHttpHandler } from '../src/index.js';
import { echoExecutor, testCard } from './helpers.js';

type Binding = 'node:http' | 'express';

async function listen(binding: Binding): Promise<{ url: string; close(): Promise<void> }> {
  const server = createA2AServer({ card: testCard(), executor: echoExecutor });
  let http: Server;
  /** What reached express's error handling: nothing may (it would answer 500 behind the binding's back). */
  const escaped: unknown[] = [];
  if (binding === 'express') {
    const app = express();
    app.use(a2aExpress(server, { maxBodyBytes: 64 * 1024 }));
    app.use((error: unknown, _req: unknown, _res: unknown, next: (error: unknown) => void) => {
      escaped.push(error);
      next(error);
    });
    http = createServer(app);
  } else {
    http = createServer(createNodeHttpHandler(server, { maxBodyBytes: 64 * 1024 }));
  }
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    async close() {
      // An error express saw (such as a router that cannot call its middleware) races the binding's reply.
      expect(escaped).toEqual([]);
      await server.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/**
 * POSTs an endless chunked body over a raw socket (a client that never looks at the answer and
 * writes 64 KiB chunks as fast as the socket takes them) and resolves, once the server closed the
 * connection, with the status line it sent and the bytes written until then.
 */
function endlessUpload(
  url: string,
  path: string,
  contentType = 'application/json',
): Promise<{ status: number | undefined; bytesSent: number }> {
  return new Promise((resolve) => {
    const { port } = new URL(url);
    const chunk = Buffer.concat([Buffer.from('10000\r\n'), Buffer.alloc(0x10000, 'x'), Buffer.from('\r\n')]);
    let reply = '';
    let bytesSent = 0;
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('data', (data: Buffer) => {
      reply += data.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1]) || undefined, bytesSent }));
    socket.write(
      `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: ${contentType}\r\nA2A-Version: 1.0\r\ntransfer-encoding: chunked\r\n\r\n`,
    );
    const pump = (): void => {
      while (!socket.destroyed) {
        bytesSent += chunk.length;
        if (!socket.write(chunk)) {
          socket.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
}

describe('an endless body after a 413', () => {
  for (const binding of ['node:http', 'express'] as const) {
    for (const path of ['/a2a/jsonrpc', '/a2a/rest/message:send']) {
      it(`${binding} ${path}: answers 413 and closes the connection instead of reading on`, async () => {
        const server = await listen(binding);
        try {
          const cpuBefore = process.cpuUsage();
          const started = Date.now();
          const results = await Promise.all([1, 2, 3].map(() => endlessUpload(server.url, path)));
          const cpu = process.cpuUsage(cpuBefore);
          for (const result of results) {
            expect(result.status).toBe(413);
            // The server stopped reading: the upload ended long before it could reach much past the limit.
            expect(result.bytesSent).toBeLessThan(64 * 1024 * 1024);
          }
          console.log(
            `${binding} ${path}: 3 endless chunked uploads refused with 413 and closed after ${Date.now() - started} ms; ` +
              `${Math.round((cpu.user + cpu.system) / 1000)} ms of CPU (client and server in this process); ` +
              `sent before close: ${results.map((r) => `${Math.round(r.bytesSent / 1024)} KiB`).join(', ')}`,
          );
          // Still serving.
          expect((await fetch(`${server.url}/.well-known/agent-card.json`)).status).toBe(200);
        } finally {
          await server.close();
        }
      }, 30_000);
    }
  }

  for (const binding of ['node:http', 'express'] as const) {
    it(`${binding}: a refused media type (400) with an endless chunked body closes the connection too`, async () => {
      const server = await listen(binding);
      try {
        const result = await endlessUpload(server.url, '/a2a/rest/message:send', 'text/plain');
        expect(result.status).toBe(400);
        expect(result.bytesSent).toBeLessThan(64 * 1024 * 1024);
      } finally {
        await server.close();
      }
    }, 30_000);
  }

  it('node:http: a 404 outside the mounts with an endless chunked body closes the connection', async () => {
    const server = await listen('node:http');
    try {
      const result = await endlessUpload(server.url, '/elsewhere');
      expect(result.status).toBe(404);
      expect(result.bytesSent).toBeLessThan(64 * 1024 * 1024);
    } finally {
      await server.close();
    }
  }, 30_000);
});
