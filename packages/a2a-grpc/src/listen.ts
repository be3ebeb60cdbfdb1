import type { A2AServer } from '@a2aplane/a2a-server-express';
import { Server, type ServerCredentials, type ServerOptions } from '@grpc/grpc-js';
import { type A2AGrpcServiceOptions, createA2AGrpcService } from './server.js';

const DEFAULT_SERVER_OPTIONS: ServerOptions = { 'grpc.enable_channelz': 0 };

export interface BindA2AGrpcOptions {
  /** Host to bind. Default `127.0.0.1`. */
  host?: string;
  /** Port to bind; `0` picks a free one. */
  port: number;
  /**
   * Required: `ServerCredentials.createSsl(...)` for TLS, or `ServerCredentials.createInsecure()`
   * to serve plaintext (a deliberate choice, e.g. behind a TLS-terminating proxy or in tests).
   */
  credentials: ServerCredentials;
  /**
   * Options of the grpc-js `Server` (message size limits, keepalive, ...). Channelz is off unless
   * set here (`'grpc.enable_channelz': 1`): it keeps per-call counters and timestamps that only its
   * admin service reads.
   */
  serverOptions?: ServerOptions;
}

export interface ListenA2AGrpcOptions extends BindA2AGrpcOptions, A2AGrpcServiceOptions {}

export interface A2AGrpcListener {
  readonly server: Server;
  /** The bound port. */
  readonly port: number;
  /** The gRPC target to advertise, `host:port`. */
  readonly target: string;
  /** Stops accepting calls, waits for running calls for up to `graceMs` (default 5000), then cancels the rest. */
  close(graceMs?: number): Promise<void>;
}

/** A bound gRPC server that serves A2A once `serve(core)` is called (the port is known before the card is built). */
export interface A2AGrpcBinding extends A2AGrpcListener {
  /** Adds the A2A service over `core`; call it once. */
  serve(core: A2AServer, options?: A2AGrpcServiceOptions): void;
}

/**
 * Binds a grpc-js server on `host:port` without services yet: for an agent whose card must name the
 * bound port (`withGrpcInterface(card, binding.target)`) before its core exists.
 */
export async function bindA2AGrpc(options: BindA2AGrpcOptions): Promise<A2AGrpcBinding> {
  if (!options?.credentials)
    throw new TypeError('expected credentials (ServerCredentials.createSsl or, deliberately, createInsecure), got none');
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535)
    throw new RangeError(`expected a port 0..65535, got ${options.port}`);
  const server = new Server({ ...DEFAULT_SERVER_OPTIONS, ...options.serverOptions });
  const host = options.host ?? '127.0.0.1';
  const hostPart = host.includes(':') ? `[${host}]` : host;
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${hostPart}:${options.port}`, options.credentials, (error, bound) => (error ? reject(error) : resolve(bound)));
  });
  let served = false;
  return {
    server,
    port,
    target: `${hostPart}:${port}`,
    serve(core, serviceOptions) {
      if (served) throw new Error('expected serve() to be called once, got a second call');
      served = true;
      const service = createA2AGrpcService(core, serviceOptions);
      server.addService(service.definition, service.implementation);
    },
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

/** Starts a grpc-js server with the A2A service over `core` on `host:port`. */
export async function listenA2AGrpc(core: A2AServer, options: ListenA2AGrpcOptions): Promise<A2AGrpcListener> {
  if (typeof core?.handle !== 'function') throw new TypeError(`expected an A2AServer from createA2AServer, got ${typeof core}`);
  const binding = await bindA2AGrpc(options);
  binding.serve(core, options);
  return binding;
}
