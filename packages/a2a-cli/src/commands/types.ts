import type { CommandContext } from '../io.js';

/** One `a2a <name>` subcommand. */
export interface Command {
  name: string;
  summary: string;
  help: string;
  run(ctx: CommandContext, argv: string[]): Promise<number>;
}
