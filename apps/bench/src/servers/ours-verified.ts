// Our server on node:http with the full governance pipeline (as ours-governed) and every caller
// verified: RFC 9421 request signatures (Ed25519, content-digest, nonce replay cache), the
// caller's key pinned, primitives from node:crypto (nodeSignatureCrypto). Unsigned requests are
// refused. The server has its own agent key, so callers that know it may sign with the fast path
// (hmac-sha256, decision 0028); the ours-verified-hmac target sends those.
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import { benchGovernance } from './bench-governor.js';
import { createCallerKeyResolver, createHttpSignatureVerifier } from '@a2aplane/a2a-identity';
import {
  InMemoryTaskStore,
  createA2AServer,
  createHttpSignatureAuthenticator,
  createNodeHttpHandler,
  nodeSignatureCrypto,
} from '@a2aplane/a2a-server-express';
import { BENCH_CALLER, BENCH_SERVER } from '../lib/signed.js';
import { parseServerArgs, serve } from './common.js';
import { countStored, oursOptions } from './ours-agent.js';

const args = parseServerArgs();
const store = new InMemoryTaskStore();
const governance = benchGovernance();
const authenticate = createHttpSignatureAuthenticator({
  verifier: createHttpSignatureVerifier({
    resolveKey: createCallerKeyResolver({ keys: [BENCH_CALLER] }),
    ownKey: BENCH_SERVER,
    ...nodeSignatureCrypto,
  }),
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
