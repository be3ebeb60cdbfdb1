#!/usr/bin/env node
import { CONSOLE_HELP as HELP, parseConsoleArgs, startConsole } from './start.js';

try {
  const options = parseConsoleArgs(process.argv.slice(2));
  if (options === 'help') process.stdout.write(`${HELP}\n`);
  else await startConsole(options);
} catch (error) {
  process.stderr.write(`a2a-console: ${(error as Error).message}\n`);
  process.exitCode = 2;
}
