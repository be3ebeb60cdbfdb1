// Not a suite: `pnpm --filter bench exec tsx src/loadgen-check.ts [rounds] [seconds]`. Validates the
// lean load generator (lib/http-load.ts) against autocannon, pinned as the throughput suite pins:
// req/s, validity, the generator's CPU per request and busy share, and the server's CPU per
// request, both generators interleaved per round on fresh servers (decision 0036).
import { killAllChildren, startServer } from './lib/children.js';
import { processCpuSeconds } from './lib/cpu.js';
import { sendMessageBody } from './lib/fixtures.js';
import { median, num, table } from './lib/format.js';
import { type LoadResult, load, loadWithAutocannon, plainRequests, signedRequests } from './lib/load.js';
import { describePinning, pinLoadGenerator } from './lib/pinning.js';
import { createHmacSignedRequestPool } from './lib/signed.js';

const rounds = Number(process.argv[2] ?? 3);
const seconds = Number(process.argv[3] ?? 3);
const TARGETS = [
  { id: 'node-echo', file: 'node-echo', signed: false },
  { id: 'ours', file: 'ours', signed: false },
  { id: 'ours-governed (signed requests, not verified)', file: 'ours-governed', signed: true },
  { id: 'ours-verified-hmac', file: 'ours-verified', signed: true },
] as const;
const GENERATORS = ['autocannon', 'lean'] as const;

interface Row extends LoadResult {
  target: string;
  generator: string;
  serverCpuMicrosPerRequest: number;
}

const pins = pinLoadGenerator();
const rows: Row[] = [];
try {
  for (let round = 1; round <= rounds; round++) {
    for (const target of TARGETS) {
      for (const generator of round % 2 ? GENERATORS : [...GENERATORS].reverse()) {
        const server = await startServer(target.file, ['--mode', 'message'], pins.pinned ? { cpu: pins.serverCpu } : {});
        try {
          const bodyOf = (id: string) => sendMessageBody('hello', id);
          const pool = target.signed ? createHmacSignedRequestPool(`${server.url}/a2a/jsonrpc`, bodyOf) : undefined;
          const run = async (s: number): Promise<LoadResult> => {
            if (generator === 'autocannon') {
              await pool?.fill(25_000 * s);
              return loadWithAutocannon(server.url, 'message', s, 50, pool);
            }
            return load(server.url, 'message', s, 50, requests);
          };
          const requests = pool ? signedRequests(server.url, pool) : plainRequests(server.url);
          await requests.prepare(pool ? 25_000 * (1 + seconds) : 0);
          await run(1);
          const before = processCpuSeconds(server.process.pid);
          const result = await run(seconds);
          const after = processCpuSeconds(server.process.pid);
          const serverCpuMicrosPerRequest =
            before === undefined || after === undefined ? Number.NaN : ((after - before) * 1e6) / result.total2xx;
          rows.push({ target: target.id, generator, serverCpuMicrosPerRequest, ...result });
          process.stdout.write(
            `r${round} ${target.id} ${generator}: ${num(result.requestsPerSecond)} req/s, generator ${num(result.generatorCpuMicrosPerRequest)} µs/req busy ${num(result.generatorBusy * 100)}%, server ${num(serverCpuMicrosPerRequest)} µs/req, 2xx ${result.total2xx} non2xx ${result.non2xx} mismatches ${result.mismatches} errors ${result.errors} timeouts ${result.timeouts}${result.valid ? '' : ' INVALID'}\n`,
          );
        } finally {
          await server.stop();
        }
      }
    }
  }
} finally {
  pins.release();
  killAllChildren();
}
const m = (values: number[]) => num(median(values));
process.stdout.write(
  `\n${describePinning(pins)}\n\n${table(
    ['target', 'generator', 'req/s (median)', 'generator CPU µs/req', 'generator busy %', 'server CPU µs/req', 'valid runs'],
    TARGETS.flatMap((target) =>
      GENERATORS.map((generator) => {
        const mine = rows.filter((r) => r.target === target.id && r.generator === generator);
        return [
          target.id,
          generator,
          m(mine.map((r) => r.requestsPerSecond)),
          m(mine.map((r) => r.generatorCpuMicrosPerRequest)),
          m(mine.map((r) => r.generatorBusy * 100)),
          m(mine.map((r) => r.serverCpuMicrosPerRequest)),
          `${mine.filter((r) => r.valid).length}/${mine.length}`,
        ];
      }),
    ),
  )}\n`,
);
