import { startServer } from '../lib/children.js';
import { errorText, num } from '../lib/format.js';
import { grpcUnaryLoad, h2loadFloor } from '../lib/grpc-load.js';
import { pinLoadGenerator } from '../lib/pinning.js';
import { type Drive, type Goal, judge, runServers, serverReport, serverTarget } from '../lib/server-suite.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';
import { GRPC_SERVER_OPTIONS } from '../servers/common.js';

const CONCURRENCY = 32;
const TARGETS = [
  serverTarget('grpc-echo', 'echo', ['--grpc'], 'bare grpc-js, fixed answer (floor)'),
  serverTarget('official-grpc', 'official', ['--grpc'], 'official @a2a-js/sdk gRPC server'),
  serverTarget('ours-grpc', 'ours', ['--grpc'], 'ours (a2a-grpc over the core)'),
];
const GOALS: Goal[] = [{ mode: 'task', name: 'ours / official', num: 'ours-grpc', den: 'official-grpc', min: 2, by: 'cpu' }];
const drive: Drive = (server, _mode, seconds) => grpcUnaryLoad(`127.0.0.1:${server.port}`, seconds, CONCURRENCY);

/** The h2load row: HTTP/2 framing against the fixed-answer server, or the loud reason it did not run. */
async function floorRow(seconds: number, cpu: number | undefined): Promise<string> {
  const server = await startServer('echo', ['--grpc'], { cpu });
  try {
    const floor = await h2loadFloor(`127.0.0.1:${server.port}`, seconds, CONCURRENCY);
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
  const timing = options.quick
    ? { warmupSeconds: 1, warmupRequests: 2_000, warmupMaxSeconds: 6, seconds: 2 }
    : { warmupSeconds: 2, warmupRequests: 5_000, warmupMaxSeconds: 15, seconds: 4 };
  const pins = pinLoadGenerator();
  let floor: string;
  let runs: Awaited<ReturnType<typeof runServers>>;
  try {
    // By count too (decision 0040): on a busy machine a time-only warm-up leaves the JIT's work in the measured run.
    runs = await runServers(TARGETS, ['task'], rounds, timing, pins.serverCpu, drive);
    floor = await floorRow(timing.seconds, pins.serverCpu);
  } finally {
    pins.release();
  }
  const markdown = [
    `Unary \`SendMessage\` in task mode over gRPC (plaintext, 127.0.0.1), driven by a @grpc/grpc-js client in the bench process with ${CONCURRENCY} calls in flight on one channel (a fresh message id per call, \`a2a-version: 1.0\`), warm-up of at least ${timing.warmupSeconds} s and ${num(timing.warmupRequests)} calls (at most ${timing.warmupMaxSeconds} s), then ${timing.seconds} s measured, ${rounds} round(s), a fresh server process per run. Every answer must have status OK and decode to a COMPLETED task. Every server runs with the same grpc-js options (\`${JSON.stringify(GRPC_SERVER_OPTIONS)}\`). Medians over rounds; req/s are calls/s.`,
    '',
    pins.note,
    '',
    ...serverReport(runs, TARGETS, GOALS),
    '',
    'The grpc-js client (the load generator) costs more CPU per call than the servers under test, so on one pinned core it sets the pace of every row and calls/s ratios are compressed: the goal is judged on the server CPU per call.',
    '',
    floor,
  ].join('\n');
  return { markdown, data: { rounds, runs, goals: judge(runs, GOALS) } };
}
