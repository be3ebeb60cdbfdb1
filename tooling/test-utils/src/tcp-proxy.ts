import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a real service, that a test can cut and restore: an
 * outage of the service (Redis, PostgreSQL) without touching the shared one.
 */
export interface TcpProxy {
  /** The proxy's port (the same after `down()` and `up()`). */
  readonly port: number;
  /** Drops every connection and refuses new ones. */
  down(): Promise<void>;
  /** Accepts connections again, on the same port (and ends a stall). */
  up(): Promise<void>;
  /** Keeps connections open but forwards nothing: a service that accepted a request and never answers. */
  stall(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  let stalled = false;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((inbound) => {
        const outbound = connect(targetPort, targetHost);
        for (const socket of [inbound, outbound]) {
          sockets.add(socket);
          socket.on('error', () => undefined);
          socket.on('close', () => {
            sockets.delete(socket);
            inbound.destroy();
            outbound.destroy();
          });
        }
        inbound.on('data', (data) => {
          if (!stalled) outbound.write(data);
        });
        outbound.on('data', (data) => {
          if (!stalled) inbound.write(data);
        });
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as AddressInfo).port;
        server = s;
        resolve();
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      if (server === undefined) return resolve();
      server.close(() => resolve());
      server = undefined;
    });
  await listen();
  return {
    get port() {
      return port;
    },
    down: stop,
    async up() {
      stalled = false;
      if (server === undefined) await listen();
    },
    stall() {
      stalled = true;
    },
    close: stop,
  };
}
