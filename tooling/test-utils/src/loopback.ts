import type { Server as HttpServer } from 'node:http';
import { type AddressInfo, createServer, type Server } from 'node:net';

/**
 * Listens on 127.0.0.1 on an ephemeral port (port 0) and resolves the base URL,
 * `http://127.0.0.1:<port>`: tests never bind other interfaces or fixed ports.
 */
export async function listenOnLoopback(server: Server | HttpServer): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes a server, ending its idle and open connections (an HTTP server's keep-alive sockets) first. */
export function closeServer(server: Server | HttpServer): Promise<void> {
  const http = server as Partial<HttpServer>;
  http.closeAllConnections?.();
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * A port on 127.0.0.1 that was free a moment ago, for a process that must be told its port
 * (a child server, redis-server, postgres). Prefer `listenOnLoopback` where the server is ours.
 */
export async function freePort(): Promise<number> {
  const probe = createServer();
  const url = await listenOnLoopback(probe);
  await closeServer(probe);
  return Number(new URL(url).port);
}
