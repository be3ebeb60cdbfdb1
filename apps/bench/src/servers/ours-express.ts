// Our server mounted on express 5 with a2aExpress (it reads the body itself: no express.json()).
import { createServer } from 'node:http';
import { createA2AServer, createInMemoryTaskStore } from '@a2aplane/a2a-server-express';
import { a2aExpress } from '@a2aplane/a2a-server-express/express';
import express from 'express';
import { parseServerArgs, serve } from './common.js';
import { countStored, oursOptions } from './ours-agent.js';

const args = parseServerArgs();
const store = createInMemoryTaskStore();
const app = express();
serve(
  createServer(app),
  args,
  () => countStored(store),
  (baseUrl) => {
    app.use(a2aExpress(createA2AServer(oursOptions(baseUrl, args.mode, args.events, store)), { heartbeatMs: 0 }));
  },
);
