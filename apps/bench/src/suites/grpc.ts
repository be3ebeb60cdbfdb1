import { loadavg } from 'node:os';
import { decodeToJson, encodeFromJson, GRPC_OPERATIONS, type GrpcOperation } from '@a2aplane/a2a-grpc';
import { startServer } from '../lib/children.js';
import { GRPC_SERVER_OPTIONS } from '../servers/common.js';
import { processCpuSeconds } from '../lib/cpu.js';
import type { H2GrpcClient, RequestTemplate } from '../lib/grpc-h2.js';
import { connectGrpcLoadClient, grpcLoadGenerator } from '../lib/grpc-load-client.js';
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
 * flight (lib/grpc-unary-load.ts); every server is measured with each count in
 * `A2A_GRPC_LOAD_THREADS` (comma-separated), in the same round. One thread is the generator of
 * decision 0035: server and generator take turns, so calls/s follows the sum of both sides' CPU per
 * call. With two, one thread's batch reaches the server while it answers the other's, so the server
 * can set the pace (decision 0047); the busy columns show which side did. The goal is judged on the
 * last count listed.
 */
const UNARY_THREADS = threadCounts(process.env.A2A_GRPC_LOAD_THREADS ?? '1,2');

function threadCounts(text: string): number[] {
  const counts = text.split(',').map((part) => Number(part.trim()));
  for (const count of counts)
    if (!(Number.isInteger(count) && count >= 1 && UNARY_CONCURRENCY % count === 0))
      throw new RangeError(`A2A_GRPC_LOAD_THREADS: expected integers >= 1 dividing ${UNARY_CONCURRENCY}, got ${JSON.stringify(text)}`);
  return [...new Set(counts)];
}
const GOAL_THREADS = UNARY_THREADS.at(-1) as number;
/** The load generator of every run (lib/grpc-load-client.ts): the raw-socket client unless `A2A_GRPC_LOADGEN=http2`. */
const GENERATOR = grpcLoadGenerator();
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
  /** Worker threads (and connections) of the load generator. */
  threads: number;
  calls: number;
  invalid: number;
  callsPerSecond: number;
  cpuMicrosPerCall: number;
  /** CPU of the bench process (the load generator) per call: it should stay well under the server's. */
  clientCpuMicrosPerCall: number;
  /** Server CPU over wall time (1 = one core busy the whole run): near 1, the server set the pace. */
  serverBusy: number;
  /** Load generator CPU over wall time (all its threads; pinned, they share one core). */
  clientBusy: number;
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

/** One unary run: a fresh server, `threads` load threads, `warmup` s, then `measure` s measured. */
async function measureUnary(
  target: Target,
  threads: number,
  round: number,
  warmup: number,
  measure: number,
  pinned: { cpu?: number },
): Promise<GrpcUnaryRun> {
  const server = await startServer(target.server, [...target.args, '--mode', 'task'], pinned);
  const client = await startUnaryLoad(`127.0.0.1:${server.port}`, requestTemplate(), METADATA, UNARY_CONCURRENCY, threads, GENERATOR);
  try {
    await client.run(warmup);
    const cpuBefore = processCpuSeconds(server.process.pid);
    const clientBefore = process.cpuUsage();
    const result = await client.run(measure);
    const clientCpu = process.cpuUsage(clientBefore);
    const cpuAfter = processCpuSeconds(server.process.pid);
    const serverCpu = cpuBefore === undefined || cpuAfter === undefined ? Number.NaN : cpuAfter - cpuBefore;
    const clientCpuSeconds = (clientCpu.user + clientCpu.system) / 1e6;
    const perCall = (seconds: number): number => (result.calls === 0 ? Number.NaN : (seconds * 1e6) / result.calls);
    const run: GrpcUnaryRun = {
      round,
      target: target.id,
      threads,
      calls: result.calls,
      invalid: result.invalid,
      callsPerSecond: result.calls / result.seconds,
      cpuMicrosPerCall: perCall(serverCpu),
      clientCpuMicrosPerCall: perCall(clientCpuSeconds),
      serverBusy: serverCpu / result.seconds,
      clientBusy: clientCpuSeconds / result.seconds,
      load: loadavg()[0] ?? Number.NaN,
    };
    process.stdout.write(
      `  unary task r${round} ${target.id} ${threads} thread(s): ${num(run.callsPerSecond)} calls/s, server CPU ${num(run.cpuMicrosPerCall)} µs/call (busy ${percent(run.serverBusy)}), load generator CPU ${num(run.clientCpuMicrosPerCall)} µs/call (busy ${percent(run.clientBusy)}), ${run.invalid} invalid, load ${run.load.toFixed(1)}\n`,
    );
    return run;
  } finally {
    await client.close();
    await server.stop();
  }
}

const percent = (share: number): string => (Number.isFinite(share) ? `${Math.round(share * 100)}%` : 'n/a');

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
      for (const threads of UNARY_THREADS) unary.push(await measureUnary(target, threads, round, warmup, measure, pinned));
    }
  }
  const levels = [1, 10];
  const streaming: GrpcStreamRun[] = [];
  for (const subscribers of levels) {
    for (const target of TARGETS.filter((t) => t.id !== 'grpc-echo')) {
      const server = await startServer(target.server, [...target.args, '--mode', 'stream', '--events', String(EVENTS_PER_TASK)], pinned);
      const client = await connectGrpcLoadClient(GENERATOR, `127.0.0.1:${server.port}`, requestTemplate(), METADATA);
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

  const med = (target: TargetId, threads: number, pick: (r: GrpcUnaryRun) => number) =>
    median(unary.filter((r) => r.target === target && r.threads === threads).map(pick));
  const callsRatio = (threads: number) =>
    med('ours-grpc', threads, (r) => r.callsPerSecond) / med('official-grpc', threads, (r) => r.callsPerSecond);
  const cpuRatioAt = (threads: number) =>
    med('official-grpc', threads, (r) => r.cpuMicrosPerCall) / med('ours-grpc', threads, (r) => r.cpuMicrosPerCall);
  const unaryRatio = callsRatio(GOAL_THREADS);
  const unaryRows = TARGETS.flatMap((t) =>
    UNARY_THREADS.map((threads) => [
      t.label,
      String(threads),
      num(med(t.id, threads, (r) => r.callsPerSecond)),
      num(med(t.id, threads, (r) => r.cpuMicrosPerCall)),
      percent(med(t.id, threads, (r) => r.serverBusy)),
      num(med(t.id, threads, (r) => r.clientCpuMicrosPerCall)),
      percent(med(t.id, threads, (r) => r.clientBusy)),
      String(unary.filter((r) => r.target === t.id && r.threads === threads).reduce((n, r) => n + r.invalid, 0)),
    ]),
  );
  const withBaseline = TARGETS.some((t) => t.id === 'ours-grpc-baseline');
  // Each round runs the servers back to back, so the ratios within a round share the machine's state.
  const roundRows = Array.from({ length: rounds }, (_, i) =>
    UNARY_THREADS.map((threads) => {
      const at = (target: TargetId) => unary.find((r) => r.round === i + 1 && r.target === target && r.threads === threads);
      const official = at('official-grpc');
      const ours = at('ours-grpc');
      return [
        String(i + 1),
        String(threads),
        ratio(ours && official ? ours.callsPerSecond / official.callsPerSecond : Number.NaN),
        ratio(ours && official ? official.cpuMicrosPerCall / ours.cpuMicrosPerCall : Number.NaN),
        ours ? `${percent(ours.serverBusy)} / ${percent(ours.clientBusy)}` : 'n/a',
        ours ? ours.load.toFixed(1) : 'n/a',
      ];
    }),
  ).flat();
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
  const beforeRatio = withBaseline
    ? med('ours-grpc', GOAL_THREADS, (r) => r.callsPerSecond) / med('ours-grpc-baseline', GOAL_THREADS, (r) => r.callsPerSecond)
    : NaN;
  const beforeCpuRatio = withBaseline
    ? med('ours-grpc-baseline', GOAL_THREADS, (r) => r.cpuMicrosPerCall) / med('ours-grpc', GOAL_THREADS, (r) => r.cpuMicrosPerCall)
    : NaN;
  const threadsText = (threads: number): string =>
    threads === 1 ? '1 load thread (one connection)' : `${threads} load threads (${threads} connections)`;
  const markdown = [
    `Unary \`SendMessage\` in task mode (submitted, working, one artifact, completed) over gRPC (plaintext, 127.0.0.1): ${UNARY_CONCURRENCY} concurrent calls, from each of ${UNARY_THREADS.join(' and ')} worker thread(s) of the bench process in turn (each thread with its own HTTP/2 connection and an equal share of the calls in flight) (lib/grpc-unary-load.ts), for ${measure} s after ${warmup} s warm-up, ${rounds} round(s) with a fresh server process per run (servers interleaved within a round). The load generator is ${GENERATOR === 'raw' ? 'a raw-socket HTTP/2 gRPC client (lib/grpc-raw.ts: frames and HPACK by hand' : 'a bare `node:http2` gRPC client (lib/grpc-h2.ts'}: pre-encoded request with a fresh message id per call, \`application/grpc\`, \`te: trailers\`, \`a2a-version: 1.0\`), the same for every server, so that the server under test and not the client sets the pace; every answer must have grpc-status 0 and decode to a COMPLETED task. Medians over rounds. Every server runs with the same grpc-js options (\`${JSON.stringify(GRPC_SERVER_OPTIONS)}\`).${withBaseline ? ' "before" is our server with the a2a-grpc build of `A2A_GRPC_BASELINE` and the server core it depends on, measured in the same run.' : ''}`,
    '',
    describePinning(pins),
    '',
    table(
      [
        'server',
        'load threads',
        'calls/s',
        'server CPU µs/call',
        'server busy',
        'load generator CPU µs/call',
        'load generator busy',
        'invalid',
      ],
      unaryRows,
    ),
    '',
    'Busy: CPU time over wall time (100% = one core the whole run). A server near 100% set the pace; well below it, it waited for the load generator (or for a core other work held).',
    '',
    table(
      ['ratio', 'value', 'goal'],
      [
        ...UNARY_THREADS.map((threads) => [
          `ours / official calls/s (task mode), ${threadsText(threads)}`,
          ratio(callsRatio(threads)),
          threads === GOAL_THREADS ? `>= 2x ${passFail(unaryRatio >= 2)}` : '',
        ]),
        ...UNARY_THREADS.map((threads) => [`official / ours server CPU per call, ${threadsText(threads)}`, ratio(cpuRatioAt(threads)), '']),
        ...(withBaseline
          ? [
              [`ours / before calls/s, ${threadsText(GOAL_THREADS)}`, ratio(beforeRatio), ''],
              [`before / ours server CPU per call, ${threadsText(GOAL_THREADS)}`, ratio(beforeCpuRatio), ''],
            ]
          : []),
      ],
    ),
    '',
    `By round (servers back to back within a round). On one connection from one thread the server and the load generator take turns (the calls in flight travel as one batch each way), so calls/s follows about 1 / (server CPU + load generator CPU per call) and the generator's share pulls the calls/s ratio below the CPU ratio (decision 0041). With two threads, one thread's batch reaches the server while it answers the other's, so the server can set the pace and the calls/s ratio approach the server CPU ratio (decision 0047); the goal is judged with ${threadsText(GOAL_THREADS)}.`,
    '',
    table(
      [
        'round',
        'load threads',
        'ours / official calls/s',
        'official / ours server CPU',
        'ours: server / load generator busy',
        'load after ours',
      ],
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
