// BENCH ONLY — a reference row, not a product path. Our server on node:http with the full
// governance pipeline (as ours-governed) and the floor of a verified caller: an authenticator that
// does only the hashing no RFC 9421 verifier can skip (the body's SHA-256 against content-digest,
// an HMAC-SHA256 over a base of the real size, a constant-time compare) and accepts every request
// (lib/floor-authenticator.mjs, decision 0054). It is fed the same hmac-signed requests as
// ours-verified-hmac: what no verifier on this stack can go below.
import { createFloorAuthenticator } from '../lib/floor-authenticator.mjs';
import { BENCH_CALLER_ID } from '../lib/signed.js';
import { benchGovernance } from './bench-governor.js';
import { serveOursOnNodeHttp } from './ours-agent.js';

const authenticate = createFloorAuthenticator({ agentId: BENCH_CALLER_ID, key: new Uint8Array(32).fill(1) });
serveOursOnNodeHttp({ authenticate, governance: benchGovernance() });
