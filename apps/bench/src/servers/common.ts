import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server as GrpcServer, ServerCredentials, ServerOptions } from '@grpc/grpc-js';

export type Mode = 'message' | 'task' | 'stream';

/** `--port N --mode message|task|stream --delay-ms N` (the executor's wait before answering) and the flags of each server. */
export function parseServerArgs(argv: string[] = process.argv.slice(2)) {
  const value = (flag: string): string | undefined => {
    const index = argv.indexOf(flag);
    return index === -1 ? undefined : argv[index + 1];
  };
  const mode = (value('--mode') ?? 'message') as Mode;
  if (!['message', 'task', 'stream'].includes(mode)) throw new RangeError(`expected --mode message|task|stream, got ${mode}`);
  return {
    port: Number(value('--port') ?? 0),
    mode,
    delayMs: Number(value('--delay-ms') ?? 0),
    value,
    has: (flag: string) => argv.includes(flag),
  };
}

/** The agent card of every bench agent: one `echo` skill, its interface at `url` over `binding`. */
export const benchCard = (name: string, url: string, binding = 'JSONRPC', capabilities: Record<string, boolean> = { streaming: true }) => ({
  name,
  description: 'an agent under benchmark',
  version: '1.0.0',
  supportedInterfaces: [{ url, protocolBinding: binding, protocolVersion: '1.0' }],
  capabilities,
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [{ id: 'echo', name: 'Echo', description: 'echo', tags: ['echo'] }],
});

/** The text every executor answers with. */
export const replyText = (input: string): string => `echo: ${input}`;

/**
 * Listens on 127.0.0.1, lets `onListening` finish the setup that needs the URL (agent cards carry
 * it), prints `READY <port>`, and on SIGTERM/SIGINT closes, runs `onStop` and exits.
 */
export function serve(server: Server, port: number, onListening?: (baseUrl: string) => void, onStop?: () => Promise<unknown>): void {
  server.keepAliveTimeout = 60_000;
  server.listen(port, '127.0.0.1', () => {
    const bound = (server.address() as AddressInfo).port;
    onListening?.(`http://127.0.0.1:${bound}`);
    process.stdout.write(`READY ${bound}\n`);
  });
  const stop = (): void => {
    server.closeAllConnections();
    server.close();
    void Promise.resolve(onStop?.()).finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

/**
 * The grpc-js `Server` options of every gRPC server under test, so they compare like for like:
 * channelz (per-call counters for its admin service) off, a2a-grpc's default.
 */
export const GRPC_SERVER_OPTIONS: ServerOptions = { 'grpc.enable_channelz': 0 };

/** Prints `READY <port>` for a gRPC server and stops it on SIGTERM/SIGINT. */
export function readyGrpc(port: number, shutdown: () => void): void {
  process.stdout.write(`READY ${port}\n`);
  const stop = (): void => {
    shutdown();
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

/** Binds a grpc-js server on 127.0.0.1, lets `onBound` add the service (cards carry the target), then READY. */
export function serveGrpc(server: GrpcServer, port: number, credentials: ServerCredentials, onBound: (target: string) => void): void {
  server.bindAsync(`127.0.0.1:${port}`, credentials, (error, bound) => {
    if (error) throw error;
    onBound(`127.0.0.1:${bound}`);
    readyGrpc(bound, () => server.forceShutdown());
  });
}
