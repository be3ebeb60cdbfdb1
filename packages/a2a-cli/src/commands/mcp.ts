import { integerOption, type ParsedArgs, parseCommandArgs, positionals, stringValue } from '../args.js';
import { usageError } from '../errors.js';
import type { CommandContext } from '../io.js';
import { clientFor, COMMON_OPTIONS } from './tasks.js';
import type { Command } from './types.js';

const HELP = `Usage: a2a mcp serve --agent <url> [--http <port>] [--host 127.0.0.1] [card and call options]

Exposes an A2A agent as an MCP server: one MCP tool per skill of its card; a tool call is a
SendMessage (streamed when the agent streams), with progress, cancel and elicitation. The card is
verified first, as for a2a send (a bad signature: exit code 2, nothing is served).

Without --http the server speaks MCP over stdio (for an MCP host that starts this command; logs go
to stderr). With --http it serves Streamable HTTP at http://<host>:<port>/mcp (port 0 picks one)
and prints that URL.

Options:
  --agent <url>        the A2A agent (its base URL)
  --http <port>        serve Streamable HTTP on this port instead of stdio
  --host <host>        with --http: the address to bind (default 127.0.0.1)
  --timeout <ms>       per-call timeout to the agent (default 30000)
  --header, --key, --sign-with, --allow-insecure, --jku-prefix, --require-signed: as for a2a send

Exit codes:
  0   stopped
  1   error (unreachable agent, bad option value)
  2   the agent card failed verification
  64  usage error`;

async function waitForStop(ctx: CommandContext): Promise<void> {
  const signal = ctx.io.signal;
  if (!signal) return new Promise<void>(() => undefined); // runs until the process ends
  if (signal.aborted) return;
  await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

async function serve(ctx: CommandContext, args: ParsedArgs): Promise<number> {
  const agent = stringValue(args, 'agent');
  if (agent === undefined) throw usageError('mcp serve: --agent <url> is required');
  const { client, close } = await clientFor('mcp serve', ctx.io, agent, args);
  // Loaded on use: the MCP SDK stays out of every other command's start-up.
  const { createAgentMcpBridge, serveMcpHttp, serveMcpStdio } = await import('@a2aplane/a2a-mcp');
  try {
    const bridge = await createAgentMcpBridge({ agent: client });
    const port = integerOption('mcp serve', args, 'http', { min: 0, max: 65_535 });
    if (port === undefined) {
      const stdio = await serveMcpStdio(bridge);
      ctx.err(ctx.style.dim(`${bridge.tools.length} tools of ${bridge.card.name} on stdio`));
      await waitForStop(ctx);
      await stdio.close();
      return 0;
    }
    const http = await serveMcpHttp(bridge, { port, host: stringValue(args, 'host') ?? '127.0.0.1' });
    ctx.out(http.url);
    ctx.err(ctx.style.dim(`${bridge.tools.length} tools of ${bridge.card.name}; press Ctrl-C to stop`));
    await waitForStop(ctx);
    await http.close();
    return 0;
  } finally {
    close();
  }
}

export const mcpCommand: Command = {
  name: 'mcp',
  summary: 'serve an A2A agent as an MCP server (a2a mcp serve --agent <url>)',
  help: HELP,
  async run(ctx, argv) {
    const [sub, ...rest] = argv;
    if (sub !== 'serve') throw usageError(`mcp: expected "serve", got ${JSON.stringify(sub ?? '')}`);
    const args = parseCommandArgs('mcp serve', rest, {
      ...COMMON_OPTIONS,
      agent: { type: 'string' },
      http: { type: 'string' },
      host: { type: 'string' },
    });
    positionals('mcp serve', args, []);
    return serve(ctx, args);
  },
};
