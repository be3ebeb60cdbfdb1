// In-process cost of verifying one signed request (RFC 9421), Ed25519 vs the hmac-sha256 fast path
// (decision 0028), with node:crypto primitives: `pnpm --filter bench exec tsx src/verify-micro.ts`.
// CPU time per verification (process.cpuUsage): requests are signed beforehand (each with its own
// body and nonce, as node:http hands them over: fresh header strings), blocks of each algorithm are
// interleaved over several rounds after a warm-up round, and the median is reported.
// `A2A_VERIFY_BASELINE=<another checkout's root>` adds the verifier of that checkout's built
// packages (a2a-identity and a2a-server-express dist) as a "before" row, measured in the same run.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createHttpRequestSigner, toVerificationKey } from '@a2aplane/a2a-identity';
import { sendMessageBody } from './lib/fixtures.js';
import { BENCH_CALLER, BENCH_SERVER } from './lib/signed.js';

const authority = '127.0.0.1:4000';
const url = `http://${authority}/a2a/jsonrpc`;
const PER_BLOCK = 5_000;
const ROUNDS = 5;

interface Build {
  name: string;
  // biome-ignore lint/suspicious/noExplicitAny: the modules of another build, loaded by path
  identity: any;
  // biome-ignore lint/suspicious/noExplicitAny: the modules of another build, loaded by path
  server: any;
}
const load = async (name: string, root: string): Promise<Build> => {
  const dist = (pkg: string) => import(pathToFileURL(resolve(root, 'packages', pkg, 'dist/index.js')).href);
  return { name, identity: await dist('a2a-identity'), server: await dist('a2a-server-express') };
};
const builds = [await load('this build', resolve(import.meta.dirname, '../../..'))];
if (process.env.A2A_VERIFY_BASELINE) builds.unshift(await load('baseline', process.env.A2A_VERIFY_BASELINE));

const signers = {
  ed25519: createHttpRequestSigner({ key: BENCH_CALLER }),
  'hmac-sha256': createHttpRequestSigner({ key: BENCH_CALLER, serverKey: toVerificationKey(BENCH_SERVER) }),
};
type Alg = keyof typeof signers;

async function requests(alg: Alg, tag: string, count = PER_BLOCK) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const body = sendMessageBody('hello', `micro-${tag}-${i}`);
    const signed: Record<string, string> = await signers[alg].sign({ method: 'POST', url, body });
    // Fresh strings, as a parsed request's headers are (not slices of one shared string).
    const headers: Record<string, string> = { host: authority, 'content-type': 'application/json', 'a2a-version': '1.0' };
    for (const [name, value] of Object.entries(signed)) headers[name] = Buffer.from(value).toString('latin1');
    out.push({ method: 'POST', authority, target: '/a2a/jsonrpc', headers, body: Buffer.from(body) });
  }
  return out;
}

const cpu = new Map<string, number[]>();
for (let round = 0; round <= ROUNDS; round++) {
  for (const build of builds) {
    for (const alg of Object.keys(signers) as Alg[]) {
      const verifier = build.identity.createHttpSignatureVerifier({
        resolveKey: build.identity.createCallerKeyResolver({ keys: [BENCH_CALLER] }),
        ownKey: BENCH_SERVER,
        authorities: [authority],
        ...build.server.nodeSignatureCrypto,
      });
      const batch = await requests(alg, `${round}`);
      // The first verification derives the fast path's request key (once per caller): not measured.
      const first = await verifier.verify((await requests(alg, `first-${round}`, 1))[0]);
      if (!first.ok) throw new Error(`verification failed: ${first.reason}`);
      const started = process.cpuUsage();
      for (const request of batch) {
        const result = await verifier.verify(request);
        if (!result.ok) throw new Error(`verification failed: ${result.reason}`);
      }
      const used = process.cpuUsage(started);
      if (round > 0) {
        const key = `${build.name}: ${alg}`;
        cpu.set(key, [...(cpu.get(key) ?? []), (used.user + used.system) / PER_BLOCK]);
      }
    }
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;
for (const [key, values] of cpu) {
  process.stdout.write(
    `${key}: ${median(values).toFixed(1)} µs of CPU per verification (per round ${values.map((v) => v.toFixed(1)).join(' / ')})\n`,
  );
}
