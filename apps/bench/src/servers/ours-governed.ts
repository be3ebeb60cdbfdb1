// Our server on node:http with the full governance pipeline: budget ledger (caps far above the
// load), recursion policy, task policy (skill allowlist, generous concurrency), lineage spend.
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import { benchGovernance } from './bench-governor.js';
import { InMemoryTaskStore, createA2AServer, createNodeHttpHandler } from '@a2aplane/a2a-server-express';
import { parseServerArgs, serve } from './common.js';
import { countStored, oursOptions } from './ours-agent.js';

const args = parseServerArgs();
const store = new InMemoryTaskStore();
const governance = benchGovernance();
let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
serve(
  createServer((req, res) => handler(req, res)),
  args,
  () => countStored(store),
  (baseUrl) => {
    const a2a = createA2AServer({
      ...oursOptions(baseUrl, args.mode, args.events, store),
      governance,
    });
    handler = createNodeHttpHandler(a2a, { heartbeatMs: 0 });
  },
);
