// Our server on node:http with the full governance pipeline (as ours-governed) and every caller
// verified: RFC 9421 request signatures (Ed25519, content-digest, nonce replay cache), the
// caller's key pinned, Ed25519 checked with node:crypto (verifyEd25519). Unsigned requests are refused.
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import {
  Governor,
  RecursionPolicy,
  SpendAggregator,
  TaskPolicyEngine,
  createInMemoryBudgetLedger,
  readTaskContext,
} from '@a2aplane/a2a-governance';
import { createCallerKeyResolver, createHttpSignatureVerifier } from '@a2aplane/a2a-identity';
import {
  InMemoryTaskStore,
  createA2AServer,
  createHttpSignatureAuthenticator,
  createNodeHttpHandler,
  verifyEd25519,
} from '@a2aplane/a2a-server-express';
import { BENCH_CALLER } from '../lib/signed.js';
import { parseServerArgs, serve } from './common.js';
import { countStored, oursOptions } from './ours-agent.js';

const args = parseServerArgs();
const store = new InMemoryTaskStore();
const governor = new Governor({
  selfAgentId: 'bench-ours',
  budget: createInMemoryBudgetLedger({ maxUsdPerMinute: 1e9, maxTokensPerMinute: 1e12, maxTasksPerMinute: 1e9 }),
  recursion: new RecursionPolicy({ maxCallDepth: 8 }),
  policy: new TaskPolicyEngine({ default: { allowedSkills: ['echo'], maxConcurrency: 100_000 } }),
  spend: new SpendAggregator(),
});
const authenticate = createHttpSignatureAuthenticator({
  verifier: createHttpSignatureVerifier({ resolveKey: createCallerKeyResolver({ keys: [BENCH_CALLER] }), verifyEd25519 }),
});
let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
serve(
  createServer((req, res) => handler(req, res)),
  args,
  () => countStored(store),
  (baseUrl) => {
    const a2a = createA2AServer({
      ...oursOptions(baseUrl, args.mode, args.events, store),
      authenticate,
      governance: { admit: (input) => governor.admit(input), readTaskContext },
    });
    handler = createNodeHttpHandler(a2a, { heartbeatMs: 0 });
  },
);
