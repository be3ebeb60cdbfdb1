import { parseArgs } from 'node:util';
import { type ConsoleServer, createConsoleServer } from './console-server.js';
import { createMesh } from './mesh/index.js';

export const CONSOLE_HELP = `Usage: a2a console [--port N] [--host H] [--relay-local] [--relay-private] [--registry URL]

Starts the a2aplane console (a web UI for any A2A agent) and prints its URL.
  --port N          port to listen on (default 5299; 0 picks a free one)
  --host H          address to bind (default 127.0.0.1: only this machine)
  --relay-local     let the relay reach agents on loopback (127.0.0.1, localhost)
  --relay-private   let the relay reach agents on private networks (10/8, 192.168/16, ...)
  --registry URL    list this a2a registry's agents in the Mesh view (the relay may reach them)

Agents' OpenTelemetry exporters can send traces to <console URL>/v1/traces (OTLP/HTTP JSON).`;

export interface StartConsoleOptions {
  port: number;
  host: string;
  relayLocal: boolean;
  relayPrivate: boolean;
  /** The registry the Mesh view lists (`--registry URL`). */
  registry?: string;
}

/** The console's command line (`a2a-console` and `a2a console` share it); 'help' for --help. */
export function parseConsoleArgs(argv: readonly string[]): StartConsoleOptions | 'help' {
  // `pnpm console -- --port 0` hands the separator on: it is not an argument.
  const args = argv[0] === '--' ? argv.slice(1) : [...argv];
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'relay-local': { type: 'boolean' },
      'relay-private': { type: 'boolean' },
      registry: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) return 'help';
  const port = Number(values.port ?? 5299);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0..65535, got ${values.port}`);
  return {
    port,
    host: values.host ?? '127.0.0.1',
    relayLocal: values['relay-local'] ?? false,
    relayPrivate: values['relay-private'] ?? false,
    ...(values.registry === undefined ? {} : { registry: registryUrl(values.registry) }),
  };
}

function registryUrl(text: string): string {
  if (!URL.canParse(text) || !/^https?:$/.test(new URL(text).protocol)) throw new Error(`--registry must be an http(s) URL, got ${text}`);
  return text;
}

/** The console the command line asks for: the relay's reach, the mesh (OTLP intake, traces, the registry's agents). */
export function createConsoleFor(options: Omit<StartConsoleOptions, 'port' | 'host'>): ConsoleServer {
  const mesh = createMesh(options.registry === undefined ? {} : { registryUrl: options.registry });
  return createConsoleServer({
    routes: mesh.routes,
    relay: { allowLoopback: options.relayLocal, allowPrivate: options.relayPrivate, isListedOrigin: mesh.isListedOrigin },
  });
}

/** Starts the console, prints its URL, and closes it on SIGINT / SIGTERM. */
export async function startConsole(
  options: StartConsoleOptions,
  out: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<ConsoleServer> {
  const server = createConsoleFor(options);
  const url = await server.listen(options.port, options.host);
  out(`a2aplane console: ${url}/`);
  const stop = () => {
    server.close().finally(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return server;
}
