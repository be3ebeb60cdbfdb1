// Our server's fetch binding in Deno or Bun, with the card and executor of ours-agent.ts. Not run by
// Node: suites/fetch-binding.ts bundles it and starts it with `deno run` or `bun run <bundle> <mode>`.
import { createA2AServer, createInMemoryTaskStore } from '@a2aplane/a2a-server-express/core';
import { type A2AFetchHandler, createFetchHandler } from '@a2aplane/a2a-server-express/fetch';
import type { Mode } from './common.js';
import { card, executor } from './ours-agent.js';

interface Runtimes {
  Deno?: {
    args: string[];
    serve(
      options: { hostname: string; port: number; onListen(address: { port: number }): void },
      fetch: (request: Request) => Promise<Response>,
    ): unknown;
  };
  Bun?: {
    argv: string[];
    serve(options: { hostname: string; port: number; fetch(request: Request): Promise<Response> }): { port: number };
  };
}

const { Deno, Bun } = globalThis as Runtimes;
const mode = ((Deno ? Deno.args[0] : Bun?.argv[2]) ?? 'message') as Mode;
let handler: A2AFetchHandler | undefined;
const fetch = async (request: Request): Promise<Response> => (await handler?.(request)) ?? new Response(null, { status: 404 });
const ready = (port: number): void => {
  const server = createA2AServer({ card: card(`http://127.0.0.1:${port}`), executor: executor(mode), store: createInMemoryTaskStore() });
  handler = createFetchHandler(server, { heartbeatMs: 0 });
  console.log(`READY ${port}`);
};
if (Deno) Deno.serve({ hostname: '127.0.0.1', port: 0, onListen: ({ port }) => ready(port) }, fetch);
else if (Bun) ready(Bun.serve({ hostname: '127.0.0.1', port: 0, fetch }).port);
else throw new Error('expected to run in Deno or Bun');
