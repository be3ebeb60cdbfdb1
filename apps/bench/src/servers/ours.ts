// Our server on bare node:http (createNodeHttpHandler), default store settings.
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import { InMemoryTaskStore, createA2AServer, createNodeHttpHandler } from '@a2aplane/a2a-server-express';
import { parseServerArgs, serve } from './common.js';
import { countStored, oursOptions } from './ours-agent.js';

const args = parseServerArgs();
const store = new InMemoryTaskStore();
let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
serve(
  createServer((req, res) => handler(req, res)),
  args,
  () => countStored(store),
  (baseUrl) => {
    handler = createNodeHttpHandler(createA2AServer(oursOptions(baseUrl, args.mode, args.events, store, args.delayMs)), { heartbeatMs: 0 });
  },
);
