// Server CPU per request of the three throughput servers that issue 16's goal compares (ours, ours
// governed, ours governed + verified callers with the hmac-sha256 fast path), in ONE process:
// `pnpm --filter bench exec tsx src/verified-server-micro.ts [requests per block] [rounds]`.
// Each server is the bench server's setup on node:http (127.0.0.1, ephemeral port); the load is 32
// keep-alive sockets of this process writing pre-built raw requests (signed beforehand, each with
// its own body and nonce) and counting replies, so the client's share is small and the same for
// every server. Blocks are interleaved (every server once per round, a fresh server per block) and
// CPU (process.cpuUsage) is reported as the median over rounds. On a loaded machine this is far
// steadier than req/s of child processes under autocannon.
// `A2A_VERIFY_BASELINE=<another checkout's root>` adds the same three servers built from that
// checkout's packages/*/dist (before/after in one run).
import { type Server, createServer } from 'node:http';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createHttpRequestSigner, toVerificationKey } from '@a2aplane/a2a-identity';
import { A2A_VERSION_HEADER } from '@a2aplane/a2a-types';
import { benchGovernanceOf } from './lib/bench-governance.mjs';
import { driveKeepAlive } from './lib/keep-alive-driver.mjs';
import { sendMessageBody } from './lib/fixtures.js';
import { BENCH_CALLER, BENCH_SERVER } from './lib/signed.js';
import { card, executor } from './servers/ours-agent.js';

const PER_BLOCK = Number(process.argv[2] ?? 4000);
const ROUNDS = Number(process.argv[3] ?? 5);
const SOCKETS = 32;
const PATH = '/a2a/jsonrpc';
const AUTHORITY = '127.0.0.1:4000';
const mode = (process.env.A2A_VERIFY_MODE ?? 'message') as 'message' | 'task';

// governed-signed: the governed server fed the signed requests, which it does not verify (what the
// signature headers alone cost node:http and the server); governed-principal: the same, with an
// authenticator that names the caller's AgentID without verifying (what a verified principal costs
// the rest of the server: governance keyed by the caller, claims).
type Variant = 'ours' | 'governed' | 'governed-signed' | 'governed-principal' | 'verified-hmac';
const VARIANTS = (['ours', 'governed', 'governed-signed', 'governed-principal', 'verified-hmac'] as const).filter(
  (v) => process.env.A2A_VERIFY_ONLY === undefined || process.env.A2A_VERIFY_ONLY.split(',').includes(v),
);

// biome-ignore lint/suspicious/noExplicitAny: modules of another build, loaded by path
type Mod = any;
interface Build {
  name: string;
  identity: Mod;
  server: Mod;
  governance: Mod;
}

async function loadBuild(name: string, root: string): Promise<Build> {
  const dist = (pkg: string) => import(pathToFileURL(resolve(root, 'packages', pkg, 'dist/index.js')).href);
  return { name, identity: await dist('a2a-identity'), server: await dist('a2a-server-express'), governance: await dist('a2a-governance') };
}

async function startVariant(build: Build, variant: Variant): Promise<{ server: Server; port: number }> {
  let handler: Parameters<typeof createServer>[1] = (_req, res) => res.writeHead(503).end();
  const server = createServer((req, res) => handler?.(req, res));
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as { port: number }).port;
  const s = build.server;
  // Every server names the same authority, so the requests can be signed before any server starts.
  const options: Record<string, unknown> = {
    card: card(`http://${AUTHORITY}`),
    executor: executor(mode, 0),
    store: new s.InMemoryTaskStore(),
  };
  if (variant !== 'ours') options.governance = benchGovernanceOf(build.governance);
  if (variant === 'verified-hmac') {
    const id = build.identity;
    options.authenticate = s.createHttpSignatureAuthenticator({
      verifier: id.createHttpSignatureVerifier({
        resolveKey: id.createCallerKeyResolver({ keys: [BENCH_CALLER] }),
        ownKey: BENCH_SERVER,
        ...s.nodeSignatureCrypto,
      }),
    });
  }
  if (variant === 'governed-principal') {
    const agentId = build.identity.agentIdFromPublicKey(BENCH_CALLER.publicKey);
    options.authenticate = async () => ({ id: agentId, agentId, scheme: 'httpSignature', claims: { alg: 'hmac-sha256' } });
  }
  handler = s.createNodeHttpHandler(s.createA2AServer(options), { heartbeatMs: 0 });
  return { server, port };
}

/** Raw HTTP/1.1 requests, one per message id; signed (fast path) for the verified server. */
async function requestsFor(variant: Variant, count: number, tag: string): Promise<Buffer[]> {
  const authority = AUTHORITY;
  const signer = createHttpRequestSigner({ key: BENCH_CALLER, serverKey: toVerificationKey(BENCH_SERVER) });
  const out: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const body = sendMessageBody('hello', `micro-${tag}-${i}`);
    const headers: Record<string, string> = {
      host: authority,
      'content-type': 'application/json',
      [A2A_VERSION_HEADER]: '1.0',
      'content-length': String(Buffer.byteLength(body)),
    };
    if (variant !== 'ours' && variant !== 'governed')
      Object.assign(headers, await signer.sign({ method: 'POST', url: `http://${authority}${PATH}`, body }));
    const head = Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    out.push(Buffer.from(`POST ${PATH} HTTP/1.1\r\n${head}\r\n${body}`));
  }
  return out;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

const builds: Build[] = [await loadBuild('this build', resolve(import.meta.dirname, '../../..'))];
if (process.env.A2A_VERIFY_BASELINE) builds.unshift(await loadBuild('baseline', process.env.A2A_VERIFY_BASELINE));
const cpu = new Map<string, number[]>();
const gc = (globalThis as { gc?: () => void }).gc;
for (let round = 0; round <= ROUNDS; round++) {
  for (const build of builds) {
    for (const variant of VARIANTS) {
      // Signed (and garbage collected) before the clock starts: the block measures the server alone.
      const warmup = await requestsFor(variant, 500, `w${round}`);
      const requests = await requestsFor(variant, PER_BLOCK, `r${round}`);
      const { server, port } = await startVariant(build, variant);
      // Round 0 warms the JIT up and is not counted; each block warms up its fresh server first.
      await driveKeepAlive(port, warmup, { sockets: SOCKETS });
      gc?.();
      const started = process.cpuUsage();
      await driveKeepAlive(port, requests, { sockets: SOCKETS });
      const used = process.cpuUsage(started);
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
      if (round === 0) continue;
      const key = `${build.name}\t${variant}`;
      cpu.set(key, [...(cpu.get(key) ?? []), (used.user + used.system) / PER_BLOCK]);
    }
  }
}
process.stdout.write(`${mode} mode, ${PER_BLOCK} requests per block, ${ROUNDS} rounds; CPU µs per request (median, per round)\n`);
for (const build of builds) {
  const of = (variant: Variant) => median(cpu.get(`${build.name}\t${variant}`) ?? []);
  for (const variant of VARIANTS) {
    const values = cpu.get(`${build.name}\t${variant}`) ?? [];
    process.stdout.write(`${build.name}\t${variant}\t${of(variant).toFixed(1)}\t(${values.map((v) => v.toFixed(1)).join(' / ')})\n`);
  }
  process.stdout.write(
    `${build.name}\tverification adds ${(of('verified-hmac') - of('governed')).toFixed(1)} µs (the headers alone ${(of('governed-signed') - of('governed')).toFixed(1)} µs, a principal ${(of('governed-principal') - of('governed-signed')).toFixed(1)} µs), governance ${(of('governed') - of('ours')).toFixed(1)} µs; by CPU governed + verified = ${(of('ours') / of('verified-hmac')).toFixed(2)}x ungoverned\n`,
  );
}
