// Not a suite: `pnpm --filter bench exec tsx src/grpc-loadgen-check.ts [rounds] [seconds] [threads]`.
// Compares the gRPC suite's two load generators (lib/grpc-load-client.ts: the raw-socket client and
// the node:http2 one) on the same servers, pinned as the suite pins, both interleaved per round on
// fresh servers: calls/s, each side's CPU per call and busy share, invalid calls (decision 0051).
import { loadavg } from 'node:os';
import { encodeFromJson, GRPC_OPERATIONS, type GrpcOperation } from '@a2aplane/a2a-grpc';
import { killAllChildren, startServer } from './lib/children.js';
import { processCpuSeconds } from './lib/cpu.js';
import { sendMessageParams } from './lib/fixtures.js';
import { median, num, table } from './lib/format.js';
import type { GrpcLoadGenerator } from './lib/grpc-load-client.js';
import { startUnaryLoad } from './lib/grpc-unary-load.js';
import { describePinning, pinLoadGenerator } from './lib/pinning.js';

const rounds = Number(process.argv[2] ?? 3);
const seconds = Number(process.argv[3] ?? 3);
const threads = Number(process.argv[4] ?? 1);
const TARGETS = (process.env.A2A_GRPC_CHECK_TARGETS ?? 'grpc-echo,ours-grpc').split(',');
const GENERATORS: GrpcLoadGenerator[] = ['http2', 'raw'];
const SEND_OP = GRPC_OPERATIONS.get('SendMessage') as GrpcOperation;

interface Row {
  target: string;
  generator: GrpcLoadGenerator;
  callsPerSecond: number;
  invalid: number;
  serverMicros: number;
  generatorMicros: number;
  serverBusy: number;
  generatorBusy: number;
  load: number;
}

const pins = pinLoadGenerator();
const rows: Row[] = [];
try {
  for (let round = 1; round <= rounds; round++) {
    for (const target of TARGETS) {
      for (const generator of round % 2 ? GENERATORS : [...GENERATORS].reverse()) {
        const server = await startServer(target, ['--mode', 'task'], pins.pinned ? { cpu: pins.serverCpu } : {});
        const placeholder = globalThis.crypto.randomUUID();
        const template = { message: encodeFromJson(SEND_OP.input, sendMessageParams('hello', placeholder)), placeholder };
        const client = await startUnaryLoad(`127.0.0.1:${server.port}`, template, { 'a2a-version': '1.0' }, 32, threads, generator);
        try {
          await client.run(1);
          const before = processCpuSeconds(server.process.pid);
          const clientBefore = process.cpuUsage();
          const result = await client.run(seconds);
          const clientCpu = process.cpuUsage(clientBefore);
          const after = processCpuSeconds(server.process.pid);
          const serverSeconds = before === undefined || after === undefined ? Number.NaN : after - before;
          const generatorSeconds = (clientCpu.user + clientCpu.system) / 1e6;
          const row: Row = {
            target,
            generator,
            callsPerSecond: result.calls / result.seconds,
            invalid: result.invalid,
            serverMicros: (serverSeconds * 1e6) / result.calls,
            generatorMicros: (generatorSeconds * 1e6) / result.calls,
            serverBusy: serverSeconds / result.seconds,
            generatorBusy: generatorSeconds / result.seconds,
            load: loadavg()[0] ?? Number.NaN,
          };
          rows.push(row);
          process.stdout.write(
            `r${round} ${target} ${generator}: ${num(row.callsPerSecond)} calls/s, server ${num(row.serverMicros)} µs/call (busy ${num(row.serverBusy * 100)}%), generator ${num(row.generatorMicros)} µs/call (busy ${num(row.generatorBusy * 100)}%), ${row.invalid} invalid, load ${row.load.toFixed(1)}\n`,
          );
        } finally {
          await client.close();
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
  `\n${describePinning(pins)}, ${threads} load thread(s)\n\n${table(
    ['server', 'generator', 'calls/s', 'server CPU µs/call', 'server busy %', 'generator CPU µs/call', 'generator busy %', 'invalid'],
    TARGETS.flatMap((target) =>
      GENERATORS.map((generator) => {
        const mine = rows.filter((r) => r.target === target && r.generator === generator);
        return [
          target,
          generator,
          m(mine.map((r) => r.callsPerSecond)),
          m(mine.map((r) => r.serverMicros)),
          m(mine.map((r) => r.serverBusy * 100)),
          m(mine.map((r) => r.generatorMicros)),
          m(mine.map((r) => r.generatorBusy * 100)),
          String(mine.reduce((n, r) => n + r.invalid, 0)),
        ];
      }),
    ),
  )}\n`,
);
