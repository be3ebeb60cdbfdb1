import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type A2AServerOptions, createA2AServer, createNodeHttpHandler } from '@a2aplane/a2a-server-express';
import type { AgentCard } from '@a2aplane/a2a-types';
import { benchCard } from '../servers/common.js';

export type Listening = { url: string; close(): Promise<void> };

/** `handler` on node:http at 127.0.0.1 on a free port, in this process; `close` runs `onClose` first. */
export async function listen(handler: RequestListener, onClose?: () => Promise<unknown>): Promise<Listening> {
  const http = createServer(handler);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    async close() {
      await onClose?.();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** An A2A server in this process (node:http binding, no SSE heartbeats) whose card has one skill and `capabilities`. */
export async function listenA2A(options: Omit<A2AServerOptions, 'card'>, capabilities: Record<string, boolean> = {}): Promise<Listening> {
  let handler: RequestListener = (_req, res) => res.writeHead(503).end();
  let close = async (): Promise<void> => undefined;
  const listening = await listen(
    (req, res) => handler(req, res),
    () => close(),
  );
  const server = createA2AServer({
    card: benchCard('bench agent', `${listening.url}/a2a/jsonrpc`, 'JSONRPC', capabilities) as AgentCard,
    ...options,
  });
  handler = createNodeHttpHandler(server, { heartbeatMs: 0 });
  close = () => server.close();
  return listening;
}
