import { cardCommand } from './commands/card.js';
import { consoleCommand } from './commands/console.js';
import { dbCommand } from './commands/db.js';
import { keygenCommand, signCardCommand, verifyCardCommand } from './commands/keys.js';
import { mcpCommand } from './commands/mcp.js';
import { registryCommand } from './commands/registry.js';
import { serveCommand } from './commands/serve.js';
import { cancelCommand, getCommand, listCommand, sendCommand, subscribeCommand } from './commands/tasks.js';
import type { Command } from './commands/types.js';
import { describeError, EXIT_CODES } from './errors.js';
import { type CliIo, createCommandContext } from './io.js';

/** The CLI's version, printed by `a2a --version`. */
export const CLI_VERSION = '0.1.0';

const COMMANDS: readonly Command[] = [
  cardCommand,
  sendCommand,
  getCommand,
  listCommand,
  cancelCommand,
  subscribeCommand,
  keygenCommand,
  signCardCommand,
  verifyCardCommand,
  serveCommand,
  mcpCommand,
  dbCommand,
  registryCommand,
  consoleCommand,
];

function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return `a2a ${CLI_VERSION}: the A2A (Agent2Agent) v1.0 command line

Usage: a2a <command> [options]   (a2a <command> --help for details)

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Output is colored only when stdout is a terminal and NO_COLOR is unset; --json gives
machine-readable output. Errors are one line on stderr.

Exit codes: 0 success, 1 error, 64 usage error, 130 interrupted; some commands add their
own (a2a card: 2 bad signature, 3 unsigned; a2a send: 4 task failed, rejected or canceled):
see a2a <command> --help.`;
}

/** Parsers put positions and excerpts on later lines; the CLI promises one line. */
function oneLine(message: string): string {
  const first = message.split('\n').find((line) => line.trim() !== '') ?? message;
  return first.trim();
}

function defaultIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, fetch: globalThis.fetch };
}

/**
 * Runs one `a2a` invocation (argv without the node and script paths) and resolves its exit code.
 * Never throws: failures are printed as one line on `io.stderr`.
 */
export async function runCli(argv: string[], io?: Partial<CliIo>): Promise<number> {
  if (!Array.isArray(argv) || argv.some((a) => typeof a !== 'string')) {
    throw new TypeError(`expected argv to be an array of strings, got ${JSON.stringify(argv)}`);
  }
  const fullIo: CliIo = { ...defaultIo(), ...io };
  const ctx = createCommandContext(fullIo);
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? COMMANDS.find((c) => c.name === rest[0]) : undefined;
    ctx.out(topic ? topic.help : mainHelp());
    return name === undefined ? EXIT_CODES.usage : EXIT_CODES.ok;
  }
  if (name === '--version' || name === '-v') {
    ctx.out(CLI_VERSION);
    return EXIT_CODES.ok;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    ctx.err(`a2a: unknown command ${JSON.stringify(name)}; commands: ${COMMANDS.map((c) => c.name).join(', ')}`);
    return EXIT_CODES.usage;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    ctx.out(command.help);
    return EXIT_CODES.ok;
  }
  try {
    return await command.run(ctx, rest);
  } catch (error) {
    // Ctrl-C during a stream or subscription is a normal way to stop.
    if (fullIo.signal?.aborted) return EXIT_CODES.interrupted;
    const { message, exitCode } = describeError(error);
    ctx.err(`${ctx.style.red('error')}: ${oneLine(message)}`);
    return exitCode;
  }
}
