// Our server on node:http with the full governance pipeline (as ours-governed) and every caller
// verified: RFC 9421 request signatures (Ed25519, content-digest, nonce replay cache), the
// caller's key pinned, Ed25519 checked with node:crypto (verifyEd25519). Unsigned requests are refused.
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import { benchGovernance } from './bench-governor.js';
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
const governance = benchGovernance();
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
      governance,
    });
    handler = createNodeHttpHandler(a2a, { heartbeatMs: 0 });
  },
);
