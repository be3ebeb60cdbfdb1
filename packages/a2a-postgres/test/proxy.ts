import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';

/** A TCP proxy a test can cut (`down`: every connection dropped, new ones refused) and restore (`up`, same port). */
export interface TcpProxy {
  port: number;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
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
        inbound.pipe(outbound);
        outbound.pipe(inbound);
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
      if (server === undefined) await listen();
    },
    close: stop,
  };
}
