import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { a2aExpress } from '../src/express/index.js';
import { createA2AServer } from '../src/index.js';
import { echoExecutor, rest, rpc, testCard, userMessage } from './helpers.js';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

async function withListener(listener: Listener, run: (url: string) => Promise<void>): Promise<void> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await run(`http://127.0.0.1:${(server.address() as { port: number }).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('express binding', () => {
  it('an express app serves JSON-RPC, REST and the card through a2aExpress', async () => {
    const app = express();
    app.use(a2aExpress(createA2AServer({ card: testCard(), executor: echoExecutor })));
    await withListener(app, async (url) => {
      const viaRpc = await rpc(url, 'SendMessage', { message: userMessage('hi') });
      expect(((viaRpc.body.result as Record<string, unknown>).task as Record<string, unknown>).id).toBeDefined();
      expect((await rest(url, 'GET', '/tasks')).body.totalSize).toBe(1);
      expect((await fetch(`${url}/.well-known/agent-card.json`)).status).toBe(200);
    });
  });

  it('calls next() for paths that are not A2A mounts', async () => {
    const middleware = a2aExpress(createA2AServer({ card: testCard(), executor: echoExecutor }));
    await withListener(
      (req, res) =>
        middleware(req, res, () => {
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"next":true}');
        }),
      async (url) => {
        expect(await (await fetch(`${url}/health`)).json()).toEqual({ next: true });
      },
    );
  });

  it('accepts a body already parsed by a body parser (req.body)', async () => {
    const middleware = a2aExpress(createA2AServer({ card: testCard(), executor: echoExecutor }));
    await withListener(
      (req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          Object.assign(req, { body: JSON.parse(Buffer.concat(chunks).toString('utf8')), _body: true });
          middleware(req, res, () => res.writeHead(404).end());
        });
      },
      async (url) => {
        expect((await rpc(url, 'SendMessage', { message: userMessage('hi') })).body.result).toBeDefined();
      },
    );
  });
});
