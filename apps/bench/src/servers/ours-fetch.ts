// Our server's fetch binding (createFetchHandler) on Node's own Request/Response, through
// @hono/node-server: the adapter Hono users deploy on Node with. Same store, card and executor as `ours`.
import type { Server } from 'node:http';
import { createA2AServer, InMemoryTaskStore } from '@a2aplane/a2a-server-express/core';
import { type A2AFetchHandler, createFetchHandler } from '@a2aplane/a2a-server-express/fetch';
import { createAdaptorServer } from '@hono/node-server';
import { parseServerArgs, serve } from './common.js';
import { countStored, oursOptions } from './ours-agent.js';

const args = parseServerArgs();
const store = new InMemoryTaskStore();
let handler: A2AFetchHandler | undefined;
const server = createAdaptorServer({
  fetch: async (request: Request) => (await handler?.(request)) ?? new Response(null, { status: 404 }),
});
serve(
  server as Server,
  args,
  () => countStored(store),
  (baseUrl) => {
    handler = createFetchHandler(createA2AServer(oursOptions(baseUrl, args.mode, args.events, store)), { heartbeatMs: 0 });
  },
);
