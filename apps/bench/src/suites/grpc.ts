import { loadavg } from 'node:os';
import { startServer } from '../lib/children.js';
import { processCpuSeconds } from '../lib/cpu.js';
import { errorText, goalTable, median, num, ratio, table } from '../lib/format.js';
import { grpcUnaryLoad, h2loadFloor } from '../lib/grpc-load.js';
import { pinLoadGenerator } from '../lib/pinning.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';
import { GRPC_SERVER_OPTIONS } from '../servers/common.js';

const TARGETS = [
  { id: 'grpc-echo', server: 'echo', label: 'bare grpc-js, fixed answer (floor)' },
  { id: 'official-grpc', server: 'official', label: 'official @a2a-js/sdk gRPC server' },
  { id: 'ours-grpc', server: 'ours', label: 'ours (a2a-grpc over the core)' },
];
const CONCURRENCY = 32;

interface GrpcRun {
  round: number;
  target: string;
  calls: number;
  invalid: number;
  callsPerSecond: number;
  /** Server CPU (user + system) per call, µs. */
  cpuMicrosPerCall: number;
  /** The bench process's CPU per call, µs: the grpc-js client's cost. */
  clientCpuMicrosPerCall: number;
  load: number;
}

type Timing = { warmupSeconds: number; warmupCalls: number; warmupMaxSeconds: number; measure: number };

async function measureUnary(target: (typeof TARGETS)[number], round: number, timing: Timing, cpu: number | undefined): Promise<GrpcRun> {
  const server = await startServer(target.server, ['--mode', 'task', '--grpc'], { cpu });
  try {
    const authority = `127.0.0.1:${server.port}`;
    // By count too (decision 0040): on a busy machine a time-only warm-up leaves the JIT's work in the measured run.
    for (
      let calls = 0, spent = 0;
      spent < timing.warmupMaxSeconds && (spent < timing.warmupSeconds || calls < timing.warmupCalls);
      spent++
    ) {
      calls += (await grpcUnaryLoad(authority, 1, CONCURRENCY)).calls;
    }
    const cpuBefore = processCpuSeconds(server.process.pid);
    const clientBefore = process.cpuUsage();
    const result = await grpcUnaryLoad(authority, timing.measure, CONCURRENCY);
    const client = process.cpuUsage(clientBefore);
    const cpuAfter = processCpuSeconds(server.process.pid);
    const perCall = (seconds: number) => (result.calls === 0 ? Number.NaN : (seconds * 1e6) / result.calls);
    const run: GrpcRun = {
      round,
      target: target.id,
      calls: result.calls,
      invalid: result.invalid,
      callsPerSecond: result.calls / result.seconds,
      cpuMicrosPerCall: cpuBefore === undefined || cpuAfter === undefined ? Number.NaN : perCall(cpuAfter - cpuBefore),
      clientCpuMicrosPerCall: perCall((client.user + client.system) / 1e6),
      load: loadavg()[0] ?? Number.NaN,
    };
    process.stdout.write(
      `  unary r${round} ${target.id}: ${num(run.callsPerSecond)} calls/s, server CPU ${num(run.cpuMicrosPerCall)} µs/call, client CPU ${num(run.clientCpuMicrosPerCall)} µs/call, ${run.invalid} invalid\n`,
    );
    return run;
  } finally {
    await server.stop();
  }
}

/** The h2load row: HTTP/2 framing against the fixed-answer server, or the loud reason it did not run. */
async function floorRow(measure: number, cpu: number | undefined): Promise<string> {
  const server = await startServer('echo', ['--grpc'], { cpu });
  try {
    const floor = await h2loadFloor(`127.0.0.1:${server.port}`, measure, CONCURRENCY);
    return `HTTP/2 floor: h2load (one connection, ${CONCURRENCY} streams in flight, one fixed gRPC frame) against the bare grpc-js server: ${num(floor.requestsPerSecond)} calls/s, ${num(floor.failed)} failed. h2load checks the HTTP status only, not \`grpc-status\`, and sends one fixed body, so it cannot drive the A2A servers (a repeated message id is answered from the idempotency record).`;
  } catch (error) {
    process.stdout.write(`  [grpc] h2load floor NOT RUN: ${errorText(error)}\n`);
    return `**HTTP/2 floor (h2load): NOT RUN — ${errorText(error)}.**`;
  } finally {
    await server.stop();
  }
}

export async function runGrpc(options: RunOptions): Promise<SuiteResult> {
  // Three rounds: the goal is judged on medians, and two rounds of this machine often differ by 1.5x.
  const rounds = options.quick ? 1 : 3;
  const timing: Timing = options.quick
    ? { warmupSeconds: 1, warmupCalls: 2_000, warmupMaxSeconds: 6, measure: 2 }
    : { warmupSeconds: 2, warmupCalls: 5_000, warmupMaxSeconds: 15, measure: 4 };
  const pins = pinLoadGenerator();
  const unary: GrpcRun[] = [];
  let floor: string;
  try {
    for (let round = 1; round <= rounds; round++) {
      for (const target of TARGETS) unary.push(await measureUnary(target, round, timing, pins.serverCpu));
    }
    floor = await floorRow(timing.measure, pins.serverCpu);
  } finally {
    pins.release();
  }
  const med = (target: string, pick: (r: GrpcRun) => number) => median(unary.filter((r) => r.target === target).map(pick));
  const byRate = med('ours-grpc', (r) => r.callsPerSecond) / med('official-grpc', (r) => r.callsPerSecond);
  const byCpu = med('official-grpc', (r) => r.cpuMicrosPerCall) / med('ours-grpc', (r) => r.cpuMicrosPerCall);
  const markdown = [
    `Unary \`SendMessage\` in task mode over gRPC (plaintext, 127.0.0.1), driven by a @grpc/grpc-js client in the bench process with ${CONCURRENCY} calls in flight on one channel (a fresh message id per call, \`a2a-version: 1.0\`), warm-up of at least ${timing.warmupSeconds} s and ${num(timing.warmupCalls)} calls (at most ${timing.warmupMaxSeconds} s), then ${timing.measure} s measured, ${rounds} round(s), a fresh server process per run. Every answer must have status OK and decode to a COMPLETED task. Every server runs with the same grpc-js options (\`${JSON.stringify(GRPC_SERVER_OPTIONS)}\`). Medians over rounds.`,
    '',
    pins.note,
    '',
    table(
      ['server', 'calls/s', 'server CPU µs/call', 'client CPU µs/call', 'invalid'],
      TARGETS.map((t) => [
        t.label,
        num(med(t.id, (r) => r.callsPerSecond)),
        num(med(t.id, (r) => r.cpuMicrosPerCall)),
        num(med(t.id, (r) => r.clientCpuMicrosPerCall)),
        String(unary.filter((r) => r.target === t.id).reduce((n, r) => n + r.invalid, 0)),
      ]),
    ),
    '',
    `The grpc-js client costs more CPU per call than the servers under test, so on one pinned core it sets the pace of every row and calls/s ratios are compressed: the server CPU per call is the comparison to read (calls/s, ours / official: ${ratio(byRate)}, for reference).`,
    '',
    goalTable([['ours vs official, server CPU per call (official / ours)', ratio(byCpu), '>= 2x', byCpu >= 2]]),
    '',
    floor,
  ].join('\n');
  return { title: 'gRPC throughput', markdown, data: { rounds, unary, byRate, byCpu } };
}
