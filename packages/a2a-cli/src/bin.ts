#!/usr/bin/env node
import { runCli } from './cli.js';

// SIGINT/SIGTERM stop long-running commands (serve, subscribe, streams) through the io signal.
const controller = new AbortController();
let stopping = false;
const stop = (): void => {
  if (stopping) process.exit(130); // a second Ctrl-C forces the exit
  stopping = true;
  controller.abort();
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

// `a2a ... | head` closes the pipe early: stop quietly rather than die on an EPIPE stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

runCli(process.argv.slice(2), { signal: controller.signal }).then(
  (code) => {
    process.exitCode = code;
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  },
  (error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
