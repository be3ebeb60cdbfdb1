// Our server on node:http with the full governance pipeline (as ours-governed) and every caller
// verified: RFC 9421 request signatures (Ed25519, content-digest, nonce replay cache), the
// caller's key pinned, primitives from node:crypto (nodeSignatureCrypto). Unsigned requests are
// refused. The server has its own agent key, so callers that know it may sign with the fast path
// (hmac-sha256, decision 0028); the ours-verified-hmac target sends those.
import { createCallerKeyResolver, createHttpSignatureVerifier } from '@a2aplane/a2a-identity';
import { createHttpSignatureAuthenticator, nodeSignatureCrypto } from '@a2aplane/a2a-server-express';
import { BENCH_CALLER, BENCH_SERVER } from '../lib/signed.js';
import { benchGovernance } from './bench-governor.js';
import { serveOursOnNodeHttp } from './ours-agent.js';

const authenticate = createHttpSignatureAuthenticator({
  verifier: createHttpSignatureVerifier({
    resolveKey: createCallerKeyResolver({ keys: [BENCH_CALLER] }),
    ownKey: BENCH_SERVER,
    ...nodeSignatureCrypto,
  }),
});
serveOursOnNodeHttp({ authenticate, governance: benchGovernance() });
