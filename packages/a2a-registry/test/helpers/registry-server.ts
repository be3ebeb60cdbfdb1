import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRegistryRequestHandler, type Registry, type RegistryHandlerOptions } from '../../src/index.js';

export const OPERATOR_TOKEN = 'operator-token-0123456789';

export async function startRegistryServer(registry: Registry, options: RegistryHandlerOptions = {}) {
  const server: Server = createServer(createRegistryRequestHandler(registry, { operatorTokens: { ops: OPERATOR_TOKEN }, ...options }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
    admin: (path: string, body: unknown, token = OPERATOR_TOKEN) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      }),
    post: (path: string, body: unknown) =>
      fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  };
}
