// Instructions and allocation per request of the three servers of issue 16's goal, counted by
// callgrind (decision 0049): deterministic where CPU timings on a shared machine are not. Plain
// node (no tsx), every package loaded from a build's dist by path, so /work/base and this checkout
// are measured alike.
//
//   node src/verified-server-count.mjs prepare <file> <count> [unsigned]
//       writes <count> raw requests (hmac-sha256 fast path, fixed clock; or unsigned) to <file>
//   CG=1 valgrind --tool=callgrind --instr-atstart=no node --single-threaded --expose-gc --no-memory-reducer \
//       --min-semi-space-size=512 --max-semi-space-size=512 \
//       src/verified-server-count.mjs serve <checkout root> <ours|governed|verified-hmac|verified-floor> <file> <warm-up> <count>
//       serves <warm-up> requests, then counts the next <count> (instrumentation on only for them);
//       the total of "Collected" / <count> is the instructions a request. Warm up past 10,000
//       requests (the spend aggregator's first eviction). `verified-floor` is the bench-only
//       reference of decision 0054 (hashing only, accepts), fed the same signed requests. It prints the bytes allocated a request
//       (no GC in the window), and without valgrind (CG unset) the CPU µs a request: read those
//       without the semi-space flags (touching 512 MB of fresh young space adds page faults).
//       Check the bytes allocated: well under ~27 KB a request means a collection fell in the
//       window (under valgrind the memory reducer's 8 s timer fires mid-run unless it is off, as
//       above). TurboFan still compiles in the window (--single-threaded compiles on the main
//       thread): 95-111 k instructions a request in decision 0054's runs, varying by run; the
//       inclusive cost of v8::internal::Runtime_CompileOptimized (callgrind_annotate
//       --inclusive=yes) is that share, to read beside the total.
import { execSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { driveKeepAlive } from './lib/keep-alive-driver.mjs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchGovernanceOf } from './lib/bench-governance.mjs';
import { createFloorAuthenticator } from './lib/floor-authenticator.mjs';

const [command, ...args] = process.argv.slice(2);
const AUTHORITY = '127.0.0.1:4000';
const PATH = '/a2a/jsonrpc';
const NOW = 1_790_000_000_000;
const dist = (root, pkg) => import(pathToFileURL(resolve(root, 'packages', pkg, 'dist/index.js')).href);
const here = resolve(import.meta.dirname, '../../..');
const keysOf = (identity) => ({
  caller: identity.keyPairFromPrivateKey('EdDSA', new Uint8Array(32).fill(7)),
  server: identity.keyPairFromPrivateKey('EdDSA', new Uint8Array(32).fill(9)),
});
const bodyOf = (messageId) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: { message: { messageId, role: 'ROLE_USER', parts: [{ text: 'hello' }] } },
  });

if (command === 'prepare') {
  const [file, count, unsigned] = args;
  const identity = await dist(here, 'a2a-identity');
  const { caller, server } = keysOf(identity);
  const signer = identity.createHttpRequestSigner({
    key: caller,
    serverKey: identity.toVerificationKey(server),
    clock: () => NOW,
    ttlSeconds: 300,
  });
  const requests = [];
  for (let i = 0; i < Number(count); i++) {
    const body = bodyOf(`count-${i}`);
    const headers = {
      host: AUTHORITY,
      'content-type': 'application/json',
      'a2a-version': '1.0',
      'content-length': String(Buffer.byteLength(body)),
    };
    if (unsigned !== 'unsigned') Object.assign(headers, await signer.sign({ method: 'POST', url: `http://${AUTHORITY}${PATH}`, body }));
    const head = Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    requests.push(`POST ${PATH} HTTP/1.1\r\n${head}\r\n${body}`);
  }
  writeFileSync(file, JSON.stringify(requests));
  process.exit(0);
}
if (command !== 'serve') throw new Error('expected prepare or serve');

const [root, variant, file, warmUp, count] = args;
const identity = await dist(root, 'a2a-identity');
const server = await dist(root, 'a2a-server-express');
const governance = await dist(root, 'a2a-governance');
const all = JSON.parse(readFileSync(file, 'utf8')).map((raw) => Buffer.from(raw, 'latin1'));
const warm = all.slice(0, Number(warmUp));
const measured = all.slice(Number(warmUp), Number(warmUp) + Number(count));
if (measured.length !== Number(count)) throw new Error(`${file} holds ${all.length} requests`);

const options = {
  card: {
    name: 'bench-ours',
    description: 'bench',
    version: '1.0.0',
    supportedInterfaces: [{ url: `http://${AUTHORITY}${PATH}`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'echo', tags: ['echo'] }],
  },
  executor: {
    async execute(context, sink) {
      const text = context.message.parts[0]?.text ?? '';
      sink.publish({
        messageId: globalThis.crypto.randomUUID(),
        contextId: context.contextId,
        role: 'ROLE_AGENT',
        parts: [{ text: `echo: ${text}` }],
      });
    },
  },
  store: new server.InMemoryTaskStore(),
};
if (variant !== 'ours') {
  options.governance = benchGovernanceOf(governance);
}
if (variant === 'verified-hmac') {
  const { caller, server: own } = keysOf(identity);
  options.authenticate = server.createHttpSignatureAuthenticator({
    verifier: identity.createHttpSignatureVerifier({
      resolveKey: identity.createCallerKeyResolver({ keys: [caller] }),
      ownKey: own,
      clock: () => NOW,
      ...server.nodeSignatureCrypto,
    }),
  });
}
if (variant === 'verified-floor') {
  const { caller } = keysOf(identity);
  options.authenticate = createFloorAuthenticator({
    agentId: identity.agentIdFromPublicKey(caller.publicKey),
    key: new Uint8Array(32).fill(1),
  });
}
const http = createServer(server.createNodeHttpHandler(server.createA2AServer(options), { heartbeatMs: 0 }));
http.keepAliveTimeout = 60_000;
await new Promise((done) => http.listen(0, '127.0.0.1', done));
const { port } = http.address();

await driveKeepAlive(port, warm, { expectResult: true });
// A minor GC empties the young generation (a full one would drop compiled code): with a 512 MB
// semi-space nothing is collected in the window, so the heap grows by what the requests allocate.
globalThis.gc?.({ type: 'minor' });
const heapBefore = process.memoryUsage().heapUsed;
if (process.env.CG) execSync(`callgrind_control -i on ${process.pid}`, { stdio: 'ignore' });
const cpuBefore = process.cpuUsage();
await driveKeepAlive(port, measured, { expectResult: true });
const cpu = process.cpuUsage(cpuBefore);
if (process.env.CG) execSync(`callgrind_control -i off ${process.pid}`, { stdio: 'ignore' });
const allocated = (process.memoryUsage().heapUsed - heapBefore) / measured.length;
process.stdout.write(
  `${variant}: ${allocated.toFixed(0)} B allocated a request${process.env.CG ? '' : `, ${((cpu.user + cpu.system) / measured.length).toFixed(1)} µs of CPU`}\n`,
);
http.close();
process.exit(0);
