import { connect, createServer, type Server, type Socket } from 'node:net';
import { REDIS_URL } from './redis.js';

/**
 * A TCP proxy in front of the test Redis that a test can cut and restore: "Redis down" for the
 * clients behind it without touching the Redis other suites share.
 */
export interface RedisProxy {
  /** `redis://127.0.0.1:<port>` of the proxy. */
  readonly url: string;
  /** Drops every connection and refuses new ones. */
  cut(): Promise<void>;
  /** Accepts connections again, on the same port. */
  restore(): Promise<void>;
  /** Accepted connections that stay silent (a stalled Redis) until `restore`. */
  stall(): void;
  close(): Promise<void>;
}

export async function startRedisProxy(): Promise<RedisProxy> {
  const target = new URL(REDIS_URL);
  const sockets = new Set<Socket>();
  let stalled = false;
  let server: Server | undefined;
  let port = 0;
  const listen = async (): Promise<void> => {
    const s = createServer((client) => {
      sockets.add(client);
      const upstream = connect(Number(target.port || 6379), target.hostname.replace(/^\[|\]$/g, ''));
      sockets.add(upstream);
      client.on('data', (d) => {
        if (!stalled) upstream.write(d);
      });
      upstream.on('data', (d) => {
        if (!stalled) client.write(d);
      });
      const close = (): void => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      client.on('close', close);
      upstream.on('close', close);
      client.on('error', close);
      upstream.on('error', close);
    });
    await new Promise<void>((resolve) => s.listen(port, '127.0.0.1', resolve));
    port = (s.address() as { port: number }).port;
    server = s;
  };
  await listen();
  const cut = async (): Promise<void> => {
    const s = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    if (s) await new Promise((resolve) => s.close(resolve));
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    cut,
    async restore() {
      stalled = false;
      if (!server) await listen();
    },
    stall() {
      stalled = true;
    },
    close: cut,
  };
}
