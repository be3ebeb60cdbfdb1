import { loadavg } from 'node:os';
import { decodeToJson, encodeFromJson, GRPC_OPERATIONS, type GrpcOperation } from '@a2aplane/a2a-grpc';
import { startServer } from '../lib/children.js';
import { GRPC_SERVER_OPTIONS } from '../servers/common.js';
import { processCpuSeconds } from '../lib/cpu.js';
import { connectH2Grpc, type H2GrpcClient, type RequestTemplate } from '../lib/grpc-h2.js';
import { startUnaryLoad } from '../lib/grpc-unary-load.js';
import { sendMessageParams } from '../lib/fixtures.js';
import { type CpuPlan, describePinning, pinLoadGenerator } from '../lib/pinning.js';
import { median, num, passFail, ratio, table } from '../lib/format.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

// The load generator decodes every reply with a2a-grpc's codec (protobuf binary -> ProtoJSON) for every server alike.
const SEND_OP = GRPC_OPERATIONS.get('SendMessage') as GrpcOperation;
const STREAM_OP = GRPC_OPERATIONS.get('SendStreamingMessage') as GrpcOperation;
type Decoded = { task?: { status?: { state?: string } }; statusUpdate?: { status?: { state?: string } } };

type TargetId = 'grpc-echo' | 'official-grpc' | 'ours-grpc' | 'ours-grpc-baseline';
interface Target {
  id: TargetId;
  label: string;
  /** The server script under src/servers/ and its extra arguments. */
  server: string;
  args: string[];
}

/**
 * The servers of the suite. `A2A_GRPC_BASELINE=<another build's a2a-grpc dist/index.js>` adds ours
 * served by that build and the server core it depends on, measured in the same run: before/after.
 */
function targets(): Target[] {
  const list: Target[] = [
    { id: 'grpc-echo', label: 'bare grpc-js, fixed answer (floor)', server: 'grpc-echo', args: [] },
    { id: 'official-grpc', label: 'official @a2a-js/sdk gRPC server', server: 'official-grpc', args: [] },
  ];
  const baseline = process.env.A2A_GRPC_BASELINE;
  if (baseline)
    list.push({
      id: 'ours-grpc-baseline',
      label: 'ours, a2a-grpc and core of A2A_GRPC_BASELINE (before)',
      server: 'ours-grpc',
      args: ['--module', baseline],
    });
  list.push({ id: 'ours-grpc', label: 'ours (a2a-grpc over the core)', server: 'ours-grpc', args: [] });
  return list;
}

const EVENTS_PER_TASK = 100;
const UNARY_CONCURRENCY = 32;
/**
 * Worker threads of the unary load, each with its own connection and an equal share of the calls in
 * flight (lib/grpc-unary-load.ts). One by default, the generator of decision 0035; `A2A_GRPC_LOAD_THREADS=2`
 * lets the server and the generator work at once instead of taking turns (decision 0041; not yet
 * measured on a quiet machine, so not the default).
 */
const UNARY_THREADS = Number(process.env.A2A_GRPC_LOAD_THREADS ?? 1);
/** `a2a-version` as every A2A gRPC client sends it. */
const METADATA = { 'a2a-version': '1.0' };

/**
 * The SendMessage request every call sends; its message id is patched per call (servers may
 * answer a repeated id from their idempotency record instead of running the agent).
 */
function requestTemplate(): RequestTemplate {
  const placeholder = globalThis.crypto.randomUUID();
  return { message: encodeFromJson(SEND_OP.input, sendMessageParams('hello', placeholder)), placeholder };
}

export interface GrpcUnaryRun {
  round: number;
  target: TargetId;
  calls: number;
  invalid: number;
  callsPerSecond: number;
  cpuMicrosPerCall: number;
  /** CPU of the bench process (the load generator) per call: it should stay well under the server's. */
  clientCpuMicrosPerCall: number;
  /** The machine's 1-minute load average after the run. */
  load: number;
}

export interface GrpcStreamRun {
  target: TargetId;
  subscribers: number;
  streams: number;
  events: number;
  mismatches: number;
  eventsPerSecond: number;
}

/** `subscribers` loops opening SendStreamingMessage streams one after another; each must end with status 0 after 100 events, the last COMPLETED. */
async function driveStreams(
  client: H2GrpcClient,
  subscribers: number,
  seconds: number,
): Promise<Omit<GrpcStreamRun, 'target' | 'subscribers'>> {
  const deadline = performance.now() + seconds * 1000;
  let streams = 0;
  let events = 0;
  let mismatches = 0;
  const started = performance.now();
  const loop = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const reply = await client.call(STREAM_OP.path);
      const last = reply.messages.at(-1);
      if (reply.status !== 0 || last === undefined) {
        mismatches++;
        continue;
      }
      streams++;
      events += reply.messages.length;
      const final = decodeToJson(STREAM_OP.output, last) as Decoded;
      if (reply.messages.length !== EVENTS_PER_TASK || final.statusUpdate?.status?.state !== 'TASK_STATE_COMPLETED') mismatches++;
    }
  };
  await Promise.all(Array.from({ length: subscribers }, loop));
  const elapsed = (performance.now() - started) / 1000;
  return { streams, events, mismatches, eventsPerSecond: events / elapsed };
}

export async function runGrpc(options: RunOptions): Promise<SuiteResult> {
  const TARGETS = targets();
  const pins = pinLoadGenerator();
  try {
    return await measureGrpc(options, TARGETS, pins);
  } finally {
    pins.release();
  }
}

async function measureGrpc(options: RunOptions, TARGETS: Target[], pins: CpuPlan): Promise<SuiteResult> {
  // Three rounds: the goal is judged on medians, and two rounds of this machine often differ by 1.5x.
  const rounds = options.quick ? 1 : 3;
  const warmup = options.quick ? 1 : 2;
  const measure = options.quick ? 2 : 4;
  const pinned = pins.pinned ? { cpu: pins.serverCpu } : {};
  const unary: GrpcUnaryRun[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const target of TARGETS) {
      const server = await startServer(target.server, [...target.args, '--mode', 'task'], pinned);
      const client = await startUnaryLoad(`127.0.0.1:${server.port}`, requestTemplate(), METADATA, UNARY_CONCURRENCY, UNARY_THREADS);
      try {
        await client.run(warmup);
        const cpuBefore = processCpuSeconds(server.process.pid);
        const clientBefore = process.cpuUsage();
        const result = await client.run(measure);
        const clientCpu = process.cpuUsage(clientBefore);
        const cpuAfter = processCpuSeconds(server.process.pid);
        const cpuMicrosPerCall =
          cpuBefore === undefined || cpuAfter === undefined || result.calls === 0
            ? Number.NaN
            : ((cpuAfter - cpuBefore) * 1e6) / result.calls;
        const run = {
          round,
          target: target.id,
          calls: result.calls,
          invalid: result.invalid,
          callsPerSecond: result.calls / result.seconds,
          cpuMicrosPerCall,
          clientCpuMicrosPerCall: result.calls === 0 ? Number.NaN : (clientCpu.user + clientCpu.system) / result.calls,
          load: loadavg()[0] ?? Number.NaN,
        };
        unary.push(run);
        process.stdout.write(
          `  unary task r${round} ${target.id}: ${num(run.callsPerSecond)} calls/s, server CPU ${num(cpuMicrosPerCall)} µs/call, load generator CPU ${num(run.clientCpuMicrosPerCall)} µs/call, ${run.invalid} invalid, load ${run.load.toFixed(1)}\n`,
        );
      } finally {
        await client.close();
        await server.stop();
      }
    }
  }
  const levels = [1, 10];
  const streaming: GrpcStreamRun[] = [];
  for (const subscribers of levels) {
    for (const target of TARGETS.filter((t) => t.id !== 'grpc-echo')) {
      const server = await startServer(target.server, [...target.args, '--mode', 'stream', '--events', String(EVENTS_PER_TASK)], pinned);
      const client = await connectH2Grpc(`127.0.0.1:${server.port}`, requestTemplate(), METADATA);
      try {
        await driveStreams(client, subscribers, 1);
        const result = await driveStreams(client, subscribers, measure);
        streaming.push({ target: target.id, subscribers, ...result });
        process.stdout.write(
          `  stream ${subscribers} ${target.id}: ${num(result.eventsPerSecond)} events/s (${result.mismatches} mismatches)\n`,
        );
      } finally {
        await client.close();
        await server.stop();
      }
    }
  }

  const med = (target: TargetId, pick: (r: GrpcUnaryRun) => number) => median(unary.filter((r) => r.target === target).map(pick));
  const unaryRatio = med('ours-grpc', (r) => r.callsPerSecond) / med('official-grpc', (r) => r.callsPerSecond);
  const cpuRatio = med('official-grpc', (r) => r.cpuMicrosPerCall) / med('ours-grpc', (r) => r.cpuMicrosPerCall);
  const unaryRows = TARGETS.map((t) => [
    t.label,
    num(med(t.id, (r) => r.callsPerSecond)),
    num(med(t.id, (r) => r.cpuMicrosPerCall)),
    num(med(t.id, (r) => r.clientCpuMicrosPerCall)),
    String(unary.filter((r) => r.target === t.id).reduce((n, r) => n + r.invalid, 0)),
  ]);
  const withBaseline = TARGETS.some((t) => t.id === 'ours-grpc-baseline');
  // Each round runs the servers back to back, so the ratios within a round share the machine's state.
  const roundRows = Array.from({ length: rounds }, (_, i) => {
    const at = (target: TargetId) => unary.find((r) => r.round === i + 1 && r.target === target);
    const official = at('official-grpc');
    const ours = at('ours-grpc');
    return [
      String(i + 1),
      ratio(ours && official ? ours.callsPerSecond / official.callsPerSecond : Number.NaN),
      ratio(ours && official ? official.cpuMicrosPerCall / ours.cpuMicrosPerCall : Number.NaN),
      ours ? num(ours.clientCpuMicrosPerCall) : 'n/a',
      ours ? ours.load.toFixed(1) : 'n/a',
    ];
  });
  const streamRows = levels.map((subscribers) => {
    const at = (target: TargetId) => streaming.find((r) => r.target === target && r.subscribers === subscribers);
    const official = at('official-grpc');
    const ours = at('ours-grpc');
    const before = at('ours-grpc-baseline');
    return [
      String(subscribers),
      official ? num(official.eventsPerSecond) : 'n/a',
      ...(withBaseline ? [before ? num(before.eventsPerSecond) : 'n/a'] : []),
      ours ? num(ours.eventsPerSecond) : 'n/a',
      ratio(ours && official ? ours.eventsPerSecond / official.eventsPerSecond : Number.NaN),
      `${official?.mismatches ?? 0} / ${ours?.mismatches ?? 0}`,
    ];
  });
  const beforeRatio = withBaseline ? med('ours-grpc', (r) => r.callsPerSecond) / med('ours-grpc-baseline', (r) => r.callsPerSecond) : NaN;
  const beforeCpuRatio = withBaseline
    ? med('ours-grpc-baseline', (r) => r.cpuMicrosPerCall) / med('ours-grpc', (r) => r.cpuMicrosPerCall)
    : NaN;
  const markdown = [
    `Unary \`SendMessage\` in task mode (submitted, working, one artifact, completed) over gRPC (plaintext, 127.0.0.1): ${UNARY_CONCURRENCY} concurrent calls ${UNARY_THREADS === 1 ? 'on one HTTP/2 connection, driven by a worker thread of the bench process' : `on ${UNARY_THREADS} HTTP/2 connections, each driven by a worker thread of the bench process with ${UNARY_CONCURRENCY / UNARY_THREADS} calls in flight`} (lib/grpc-unary-load.ts), for ${measure} s after ${warmup} s warm-up, ${rounds} round(s) with a fresh server process per run (servers interleaved within a round). The load generator is a bare \`node:http2\` gRPC client (lib/grpc-h2.ts: pre-encoded request with a fresh message id per call, \`application/grpc\`, \`te: trailers\`, \`a2a-version: 1.0\`), the same for every server, so that the server under test and not a grpc-js client sets the pace; every answer must have grpc-status 0 and decode to a COMPLETED task. Medians over rounds. Every server runs with the same grpc-js options (\`${JSON.stringify(GRPC_SERVER_OPTIONS)}\`).${withBaseline ? ' "before" is our server with the a2a-grpc build of `A2A_GRPC_BASELINE` and the server core it depends on, measured in the same run.' : ''}`,
    '',
    describePinning(pins),
    '',
    table(['server', 'calls/s', 'server CPU µs/call', 'load generator CPU µs/call', 'invalid'], unaryRows),
    '',
    table(
      ['ratio', 'value', 'goal'],
      [
        ['ours / official calls/s (task mode)', ratio(unaryRatio), `>= 2x ${passFail(unaryRatio >= 2)}`],
        ['official / ours server CPU per call', ratio(cpuRatio), ''],
        ...(withBaseline
          ? [
              ['ours / before calls/s', ratio(beforeRatio), ''],
              ['before / ours server CPU per call', ratio(beforeCpuRatio), ''],
            ]
          : []),
      ],
    ),
    '',
    `By round (servers back to back within a round). On one connection from one thread the server and the load generator take turns (the calls in flight travel as one batch each way), so calls/s follows about 1 / (server CPU + load generator CPU per call) and the generator's share pulls the calls/s ratio below the CPU ratio (decision 0041).${UNARY_THREADS > 1 ? ` With ${UNARY_THREADS} threads, one thread's batch can reach the server while it answers another's.` : ''}`,
    '',
    table(
      ['round', 'ours / official calls/s', 'official / ours server CPU', 'load generator CPU µs/call (ours)', 'load after ours'],
      roundRows,
    ),
    '',
    `\`SendStreamingMessage\` with ${EVENTS_PER_TASK} events per task: N concurrent subscribers each open one stream after another for ${measure} s; every stream must carry ${EVENTS_PER_TASK} events ending in COMPLETED.`,
    '',
    table(
      [
        'concurrent subscribers',
        'official events/s',
        ...(withBaseline ? ['before events/s'] : []),
        'ours events/s',
        'ours / official',
        'bad streams (official / ours)',
      ],
      streamRows,
    ),
  ].join('\n');
  return { title: 'gRPC throughput', markdown, data: { unary, streaming } };
}
