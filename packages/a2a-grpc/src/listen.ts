import type { A2AServer } from '@a2aplane/a2a-server-express';
import { Server, type ServerCredentials, type ServerOptions } from '@grpc/grpc-js';
import { type A2AGrpcServiceOptions, createA2AGrpcService } from './server.js';

export interface ListenA2AGrpcOptions extends A2AGrpcServiceOptions {
  /** Host to bind. Default `127.0.0.1`. */
  host?: string;
  /** Port to bind; `0` picks a free one. */
  port: number;
  /**
   * Required: `ServerCredentials.createSsl(...)` for TLS, or `ServerCredentials.createInsecure()`
   * to serve plaintext (a deliberate choice, e.g. behind a TLS-terminating proxy or in tests).
   */
  credentials: ServerCredentials;
  /** Options of the grpc-js `Server` (message size limits, keepalive, ...). */
  serverOptions?: ServerOptions;
}

export interface A2AGrpcListener {
  readonly server: Server;
  /** The bound port. */
  readonly port: number;
  /** The gRPC target to advertise, `host:port`. */
  readonly target: string;
  /** Stops accepting calls, waits for running calls for up to `graceMs` (default 5000), then cancels the rest. */
  close(graceMs?: number): Promise<void>;
}

/** Starts a grpc-js server with the A2A service on `host:port`. */
export async function listenA2AGrpc(core: A2AServer, options: ListenA2AGrpcOptions): Promise<A2AGrpcListener> {
  if (!options?.credentials) throw new TypeError('expected credentials (ServerCredentials.createSsl or, deliberately, createInsecure), got none');
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) throw new RangeError(`expected a port 0..65535, got ${options.port}`);
  const service = createA2AGrpcService(core, options);
  const server = new Server(options.serverOptions);
  server.addService(service.definition, service.implementation);
  const host = options.host ?? '127.0.0.1';
  const address = host.includes(':') ? `[${host}]:${options.port}` : `${host}:${options.port}`;
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(address, options.credentials, (error, bound) => (error ? reject(error) : resolve(bound)));
  });
  const target = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  return {
    server,
    port,
    target,
    close(graceMs = 5000) {
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        timer.unref();
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}
