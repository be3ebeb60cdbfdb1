import type { Server } from 'node:http';
import type { Server as GrpcServer, ServerCredentials, ServerOptions } from '@grpc/grpc-js';

export type Mode = 'message' | 'task' | 'stream';

export interface ServerArgs {
  port: number;
  mode: Mode;
  /** Events per task in stream mode. */
  events: number;
  /** Print `RSS <rss> <heapUsed> <tasks>` on stdout every second. */
  reportRss: boolean;
  /** Milliseconds the executor waits before answering (`--delay-ms`, default 0: at once). */
  delayMs: number;
}

export function parseServerArgs(argv: string[] = process.argv.slice(2)): ServerArgs {
  const value = (flag: string): string | undefined => {
    const index = argv.indexOf(flag);
    return index === -1 ? undefined : argv[index + 1];
  };
  const mode = (value('--mode') ?? 'message') as Mode;
  if (mode !== 'message' && mode !== 'task' && mode !== 'stream') throw new RangeError(`expected --mode message|task|stream, got ${mode}`);
  const delayMs = Number(value('--delay-ms') ?? 0);
  if (!(delayMs >= 0)) throw new RangeError(`expected --delay-ms to be a number >= 0, got ${value('--delay-ms')}`);
  return {
    port: Number(value('--port') ?? 0),
    mode,
    events: Number(value('--events') ?? 100),
    reportRss: argv.includes('--report-rss'),
    delayMs,
  };
}

/** The text every executor answers with. */
export const replyText = (input: string): string => `echo: ${input}`;

/**
 * Listens on 127.0.0.1, lets `onListening` finish the setup that needs the port (agent cards
 * carry their URL), prints `READY <port>`, reports RSS if asked and closes on SIGTERM/SIGINT.
 */
export function serve(server: Server, args: ServerArgs, countTasks: () => number = () => 0, onListening?: (baseUrl: string) => void): void {
  server.keepAliveTimeout = 60_000;
  server.listen(args.port, '127.0.0.1', () => {
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : args.port;
    onListening?.(`http://127.0.0.1:${port}`);
    process.stdout.write(`READY ${port}\n`);
    if (args.reportRss) {
      setInterval(() => {
        const usage = process.memoryUsage();
        process.stdout.write(`RSS ${usage.rss} ${usage.heapUsed} ${countTasks()}\n`);
      }, 1000).unref();
    }
  });
  const stop = (): void => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 1000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/** What the echo servers answer: the same shapes as the A2A servers, built per request. */
export function echoResult(mode: Mode, text: string): unknown {
  const contextId = globalThis.crypto.randomUUID();
  if (mode === 'message') {
    return { message: { messageId: globalThis.crypto.randomUUID(), contextId, role: 'ROLE_AGENT', parts: [{ text: replyText(text) }] } };
  }
  const id = globalThis.crypto.randomUUID();
  return {
    task: {
      id,
      contextId,
      status: { state: 'TASK_STATE_COMPLETED', timestamp: new Date().toISOString() },
      artifacts: [{ artifactId: 'a-1', parts: [{ text: replyText(text) }] }],
    },
  };
}

/** Text of the first part of a JSON-RPC SendMessage body, or '' when there is none. */
export function requestText(body: unknown): string {
  const params = (body as { params?: { message?: { parts?: Array<{ text?: unknown }> } } })?.params;
  const text = params?.message?.parts?.[0]?.text;
  return typeof text === 'string' ? text : '';
}

/**
 * The grpc-js `Server` options of every gRPC server under test (ours, the official SDK's, the
 * floor), so they compare like for like. Channelz (per-call counters and timestamps for the
 * channelz admin service) is off: a2a-grpc's default, set here for the others too.
 */
export const GRPC_SERVER_OPTIONS: ServerOptions = { 'grpc.enable_channelz': 0 };

/** Prints `READY <port>` for a gRPC server and stops it on SIGTERM/SIGINT. */
export function readyGrpc(port: number, shutdown: () => void): void {
  process.stdout.write(`READY ${port}\n`);
  const stop = (): void => {
    shutdown();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/** Binds a grpc-js server on 127.0.0.1, lets `onBound` add the service (cards carry the target), then READY. */
export function serveGrpc(server: GrpcServer, args: ServerArgs, onBound: (target: string) => void, credentials: ServerCredentials): void {
  server.bindAsync(`127.0.0.1:${args.port}`, credentials, (error, port) => {
    if (error) throw error;
    onBound(`127.0.0.1:${port}`);
    readyGrpc(port, () => server.forceShutdown());
  });
}
