// In-process cost of verifying one signed request (RFC 9421), Ed25519 vs the hmac-sha256 fast
// path (decision 0028), with node:crypto primitives: `pnpm --filter bench exec tsx src/verify-micro.ts`.
// CPU time per verification (process.cpuUsage), after a warm-up; requests are signed beforehand.
import { createCallerKeyResolver, createHttpRequestSigner, createHttpSignatureVerifier, toVerificationKey } from '@a2aplane/a2a-identity';
import { nodeSignatureCrypto } from '@a2aplane/a2a-server-express';
import { sendMessageBody } from './lib/fixtures.js';
import { BENCH_CALLER, BENCH_SERVER } from './lib/signed.js';

const authority = '127.0.0.1:4000';
const url = `http://${authority}/a2a/jsonrpc`;
const COUNT = 20_000;
const WARMUP = 2_000;

for (const fast of [false, true]) {
  const signer = createHttpRequestSigner({ key: BENCH_CALLER, ...(fast ? { serverKey: toVerificationKey(BENCH_SERVER) } : {}) });
  const verifier = createHttpSignatureVerifier({
    resolveKey: createCallerKeyResolver({ keys: [BENCH_CALLER] }),
    ownKey: BENCH_SERVER,
    authorities: [authority],
    ...nodeSignatureCrypto,
  });
  const requests = [];
  for (let i = 0; i < COUNT; i++) {
    const body = sendMessageBody('hello', `micro-${i}`);
    const headers = await signer.sign({ method: 'POST', url, body });
    requests.push({ method: 'POST', authority, target: '/a2a/jsonrpc', headers: { host: authority, ...headers }, body: Buffer.from(body) });
  }
  let started = process.cpuUsage();
  for (let i = 0; i < COUNT; i++) {
    if (i === WARMUP) started = process.cpuUsage();
    const result = await verifier.verify(requests[i] as (typeof requests)[number]);
    if (!result.ok) throw new Error(`verification failed: ${result.reason}`);
  }
  const cpu = process.cpuUsage(started);
  const micros = (cpu.user + cpu.system) / (COUNT - WARMUP);
  process.stdout.write(`${fast ? 'hmac-sha256' : 'ed25519'}: ${micros.toFixed(1)} µs of CPU per verification\n`);
}
