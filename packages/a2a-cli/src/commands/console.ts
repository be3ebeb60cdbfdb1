import { CliError, usageError } from '../errors.js';
import type { CommandContext } from '../io.js';
import type { Command } from './types.js';

interface ConsoleArgs {
  port: number;
  host: string;
  relayLocal: boolean;
  relayPrivate: boolean;
  registry?: string;
}

/** What `a2a console` uses of `@a2aplane/a2a-console` (an optional peer: only users of the console install it). */
interface ConsoleModule {
  parseConsoleArgs(argv: readonly string[]): ConsoleArgs | 'help';
  /** The console with the relay and the mesh (OTLP intake, traces, `--registry`) the arguments ask for. */
  createConsoleFor(options: ConsoleArgs): {
    listen(port?: number, host?: string): Promise<string>;
    close(): Promise<void>;
  };
  CONSOLE_HELP: string;
}

export const CONSOLE_INSTALL_HINT = 'console: needs @a2aplane/a2a-console; install it next to the CLI (npm i @a2aplane/a2a-console)';

function isMissingModule(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return (
    code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND' || /Cannot find (module|package)/.test(String((error as Error)?.message))
  );
}

const HELP = `Usage: a2a console [--port N] [--host H] [--relay-local] [--relay-private] [--registry URL]

Starts the a2aplane console, a web UI to open any A2A agent by URL, verify its card and talk to
it, and prints its URL. Needs @a2aplane/a2a-console installed next to the CLI.

Options:
  --port N          port to listen on (default 5299; 0 picks a free one)
  --host H          address to bind (default 127.0.0.1: only this machine)
  --relay-local     let the console's relay reach agents on loopback (127.0.0.1, localhost)
  --relay-private   let the relay reach agents on private networks
  --registry URL    list this a2a registry's agents in the Mesh view (the relay may reach them)

Agents' OpenTelemetry exporters can send traces to <console URL>/v1/traces (OTLP/HTTP JSON).

Exit codes:
  0   stopped
  1   error (the console package is missing, the port is taken)
  64  usage error`;

async function waitForStop(ctx: CommandContext): Promise<void> {
  const signal = ctx.io.signal;
  if (!signal) return new Promise<void>(() => undefined); // runs until the process ends
  if (signal.aborted) return;
  await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/** `a2a console`, loading the console package with `load` (tests pass a loader that fails). */
export function createConsoleCommand(
  load: () => Promise<ConsoleModule> = () => import('@a2aplane/a2a-console') as Promise<ConsoleModule>,
): Command {
  return {
    name: 'console',
    summary: 'start the web console for any A2A agent (needs @a2aplane/a2a-console)',
    help: HELP,
    async run(ctx, argv) {
      let module: ConsoleModule;
      try {
        module = await load();
      } catch (error) {
        if (isMissingModule(error)) throw new CliError(CONSOLE_INSTALL_HINT);
        throw error;
      }
      let options: ReturnType<ConsoleModule['parseConsoleArgs']>;
      try {
        options = module.parseConsoleArgs(argv);
      } catch (error) {
        throw usageError(`console: ${(error as Error).message}`);
      }
      if (options === 'help') {
        ctx.out(HELP);
        return 0;
      }
      const server = module.createConsoleFor(options);
      const url = await server.listen(options.port, options.host);
      ctx.out(`${url}/`);
      ctx.err(ctx.style.dim('the a2aplane console; press Ctrl-C to stop'));
      await waitForStop(ctx);
      await server.close();
      return 0;
    },
  };
}

export const consoleCommand: Command = createConsoleCommand();
