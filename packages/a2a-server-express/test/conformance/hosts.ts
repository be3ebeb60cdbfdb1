import { closeServer, freePort, listenOnLoopback } from '@a2aplane/test-utils';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { createNodeHttpHandler } from '../../src/index.js';
import { CONFORMANCE_HTTP_OPTIONS, createConformanceHost, createConformanceServer } from './agent.js';
import { nodeFetchListener } from './node-fetch-host.js';

/** A binding under test, listening on 127.0.0.1. */
export interface Host {
  url: string;
  /** The server's live counts (`A2AServer.stats()`), read where the server runs. */
  stats(): Promise<{ liveTasks: number; subscribers: number }>;
  close(): Promise<void>;
}

const here = dirname(fileURLToPath(import.meta.url));
const packageDir = join(here, '..', '..');

async function listenNode(listener: Parameters<typeof createServer>[1]): Promise<{ url: string; close(): Promise<void> }> {
  const http = createServer(listener);
  return { url: await listenOnLoopback(http), close: () => closeServer(http) };
}

/** The node:http binding. The card's URL is set once the port is known. */
export async function startNodeHttp(): Promise<Host> {
  let handler: ReturnType<typeof createNodeHttpHandler> | undefined;
  const listening = await listenNode((req, res) => handler?.(req, res));
  const server = createConformanceServer(listening.url);
  handler = createNodeHttpHandler(server, CONFORMANCE_HTTP_OPTIONS);
  return {
    url: listening.url,
    stats: async () => server.stats(),
    async close() {
      await server.close();
      await listening.close();
    },
  };
}

/** The fetch binding under Node's own `Request`/`Response`, through a node:http adapter. */
export async function startFetchOnNode(): Promise<Host> {
  let host: ReturnType<typeof createConformanceHost> | undefined;
  const listening = await listenNode(nodeFetchListener((request) => (host as NonNullable<typeof host>).fetch(request)));
  host = createConformanceHost(listening.url);
  const server = host.server;
  return {
    url: listening.url,
    stats: async () => server.stats(),
    async close() {
      await server.close();
      await listening.close();
    },
  };
}

/** Bundles the agent and the fetch entry for the neutral platform: a Node built-in anywhere fails here. */
async function bundleAgent(outDir: string): Promise<void> {
  await esbuild.build({
    entryPoints: [join(here, 'agent.ts')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    conditions: ['@a2aplane/source', 'import', 'default'],
    outfile: join(outDir, 'agent.mjs'),
    logLevel: 'silent',
    absWorkingDir: packageDir,
  });
}

const BOOTSTRAP = {
  deno: `import { createConformanceHost } from './agent.mjs';
let host;
Deno.serve({ hostname: '127.0.0.1', port: 0, onListen: ({ port }) => {
  host = createConformanceHost('http://127.0.0.1:' + port);
  console.log('LISTENING ' + port);
} }, (request) => host.fetch(request));
`,
  // A Workers module without the nodejs_compat flag; the config's compatibility date (2024-09-01)
  // is one without Node globals (later dates bring Buffer and process by default).
  workerd: `import { createConformanceHost } from './agent.mjs';
let host;
export default { fetch(request) {
  host ??= createConformanceHost(new URL(request.url).origin);
  return host.fetch(request);
} };
`,
  bun: `import { createConformanceHost } from './agent.mjs';
let host;
const server = Bun.serve({ hostname: '127.0.0.1', port: 0, idleTimeout: 0, fetch: (request) => host.fetch(request) });
host = createConformanceHost('http://127.0.0.1:' + server.port);
console.log('LISTENING ' + server.port);
`,
} as const;

export type Runtime = keyof typeof BOOTSTRAP;

const require = createRequire(import.meta.url);

/**
 * The runtime's own binary inside its npm package (not the package's `bin` launcher: `deno`'s is a
 * Node script that would outlive a kill as an orphaned child), so the pid is the server's.
 */
export function runtimeBinary(runtime: Runtime): string {
  const dir = dirname(require.resolve(`${runtime}/package.json`));
  if (runtime === 'deno') return join(dir, 'deno');
  return runtime === 'bun' ? join(dir, 'bin', 'bun.exe') : join(dir, 'bin', 'workerd');
}

/** workerd's config: the two modules and a socket on `port` (workerd cannot report a port it picked). */
function workerdConfig(port: number): string {
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [(name = "main.mjs", esModule = embed "main.mjs"), (name = "agent.mjs", esModule = embed "agent.mjs")],
  compatibilityDate = "2024-09-01",
);
`;
}

async function runtimeCommand(runtime: Runtime, script: string): Promise<[string, string[], number | undefined]> {
  const bin = runtimeBinary(runtime);
  if (runtime === 'deno') return [bin, ['run', '--no-config', '--no-prompt', '--allow-net=127.0.0.1', script], undefined];
  if (runtime === 'bun') return [bin, ['run', script], undefined];
  const port = await freePort();
  const config = join(dirname(script), 'config.capnp');
  writeFileSync(config, workerdConfig(port));
  return [bin, ['serve', config], port];
}

/** workerd prints nothing when it listens: poll until the host's own path answers. */
async function waitForPort(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 300 && child.exitCode === null; i++) {
    try {
      if ((await fetch(`${url}/_stats`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`workerd did not answer on ${url}`);
}

/** Starts the bundled agent in another runtime (installed from npm through the lockfile) on 127.0.0.1. */
export async function startRuntime(runtime: Runtime): Promise<Host & { version: string }> {
  const dir = mkdtempSync(join(tmpdir(), `a2a-fetch-${runtime}-`));
  await bundleAgent(dir);
  const script = join(dir, 'main.mjs');
  writeFileSync(script, BOOTSTRAP[runtime]);
  const [command, args, fixedPort] = await runtimeCommand(runtime, script);
  const child: ChildProcess = spawn(command, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  // Never outlive the test process, whatever ends it.
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    if (fixedPort !== undefined) {
      child.stderr?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      waitForPort(`http://127.0.0.1:${fixedPort}`, child).then(
        () => resolve(fixedPort),
        (error: Error) => reject(new Error(`${error.message}: ${output}`)),
      );
      return;
    }
    const timer = setTimeout(() => reject(new Error(`${runtime} did not start: ${output}`)), 30_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /LISTENING (\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${runtime} exited with ${code}: ${output}`));
    });
  });
  const url = `http://127.0.0.1:${port}`;
  const [versionCommand, versionArgs] = [command, ['--version']];
  // (workerd prints `workerd <date>`, deno `deno <version>`, bun its version)
  const version = await new Promise<string>((resolve) => {
    let text = '';
    const probe = spawn(versionCommand, versionArgs, { stdio: ['ignore', 'pipe', 'ignore'] });
    probe.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    probe.once('close', () => resolve(text.split('\n')[0]?.trim() ?? ''));
  });
  return {
    url,
    version,
    async stats() {
      return (await (await fetch(`${url}/_stats`)).json()) as { liveTasks: number; subscribers: number };
    },
    async close() {
      process.off('exit', killOnExit);
      if (child.exitCode === null) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
