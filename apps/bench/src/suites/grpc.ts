import { decodeToJson, encodeFromJson, GRPC_OPERATIONS, type GrpcOperation } from '@a2aplane/a2a-grpc';
import { Client, credentials, Metadata } from '@grpc/grpc-js';
import { startServer } from '../lib/children.js';
import { GRPC_SERVER_OPTIONS } from '../servers/common.js';
import { processCpuSeconds } from '../lib/cpu.js';
import { sendMessageParams } from '../lib/fixtures.js';
import { median, num, passFail, ratio, table } from '../lib/format.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

// The client side decodes with a2a-grpc's codec (protobuf binary -> ProtoJSON) for both servers alike.
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
 * served by that build (over this workspace's core), measured in the same run: before/after.
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
      label: 'ours, a2a-grpc of A2A_GRPC_BASELINE (before)',
      server: 'ours-grpc',
      args: ['--module', baseline],
    });
  list.push({ id: 'ours-grpc', label: 'ours (a2a-grpc over the core)', server: 'ours-grpc', args: [] });
  return list;
}

const EVENTS_PER_TASK = 100;
const UNARY_CONCURRENCY = 32;
const pass = (b: Buffer): Buffer => b;
/**
 * The load generator's channel, the same for every server: it shares the machine with the server
 * under test, so it leaves out what only costs it CPU (channelz bookkeeping, and the retry layer
 * that copies every request for a retry this bench never makes).
 */
const CLIENT_OPTIONS = { 'grpc.enable_channelz': 0, 'grpc.enable_retries': 0 } as const;

/** A fresh messageId per request, so the servers run the agent every time instead of answering a repeated send. */
function requestBytes(): Buffer {
  return encodeFromJson(SEND_OP.input, sendMessageParams('hello'));
}

function metadata(): Metadata {
  const md = new Metadata();
  md.set('a2a-version', '1.0');
  return md;
}

export interface GrpcUnaryRun {
  round: number;
  target: TargetId;
  calls: number;
  invalid: number;
  callsPerSecond: number;
  cpuMicrosPerCall: number;
}

export interface GrpcStreamRun {
  target: TargetId;
  subscribers: number;
  streams: number;
  events: number;
  mismatches: number;
  eventsPerSecond: number;
}

/** `UNARY_CONCURRENCY` loops of back-to-back SendMessage calls on one channel; every answer must be a COMPLETED task. */
async function driveUnary(client: Client, seconds: number): Promise<{ calls: number; invalid: number; seconds: number }> {
  const deadline = performance.now() + seconds * 1000;
  let calls = 0;
  let invalid = 0;
  const started = performance.now();
  const once = (): Promise<void> =>
    new Promise((resolve) => {
      client.makeUnaryRequest(SEND_OP.path, pass, pass, requestBytes(), metadata(), (error, response) => {
        if (error || !response) invalid++;
        else {
          const decoded = decodeToJson(SEND_OP.output, response) as Decoded;
          if (decoded.task?.status?.state === 'TASK_STATE_COMPLETED') calls++;
          else invalid++;
        }
        resolve();
      });
    });
  const loop = async (): Promise<void> => {
    while (performance.now() < deadline) await once();
  };
  await Promise.all(Array.from({ length: UNARY_CONCURRENCY }, loop));
  return { calls, invalid, seconds: (performance.now() - started) / 1000 };
}

/** `subscribers` loops opening SendStreamingMessage streams one after another; each must carry 100 events ending COMPLETED. */
async function driveStreams(client: Client, subscribers: number, seconds: number): Promise<Omit<GrpcStreamRun, 'target' | 'subscribers'>> {
  const deadline = performance.now() + seconds * 1000;
  let streams = 0;
  let events = 0;
  let mismatches = 0;
  const started = performance.now();
  const once = (): Promise<void> =>
    new Promise((resolve) => {
      const call = client.makeServerStreamRequest(STREAM_OP.path, pass, pass, requestBytes(), metadata());
      let count = 0;
      let last: Buffer | undefined;
      call.on('data', (chunk: Buffer) => {
        count++;
        last = chunk;
      });
      call.on('error', () => {
        mismatches++;
        resolve();
      });
      call.on('end', () => {
        streams++;
        events += count;
        const final = last ? (decodeToJson(STREAM_OP.output, last) as Decoded) : undefined;
        if (count !== EVENTS_PER_TASK || final?.statusUpdate?.status?.state !== 'TASK_STATE_COMPLETED') mismatches++;
        resolve();
      });
    });
  const loop = async (): Promise<void> => {
    while (performance.now() < deadline) await once();
  };
  await Promise.all(Array.from({ length: subscribers }, loop));
  const elapsed = (performance.now() - started) / 1000;
  return { streams, events, mismatches, eventsPerSecond: events / elapsed };
}

export async function runGrpc(options: RunOptions): Promise<SuiteResult> {
  const rounds = options.quick ? 1 : 2;
  const warmup = options.quick ? 1 : 2;
  const measure = options.quick ? 2 : 4;
  const TARGETS = targets();
  const unary: GrpcUnaryRun[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const target of TARGETS) {
      const server = await startServer(target.server, [...target.args, '--mode', 'task']);
      const client = new Client(`127.0.0.1:${server.port}`, credentials.createInsecure(), CLIENT_OPTIONS);
      try {
        await driveUnary(client, warmup);
        const cpuBefore = processCpuSeconds(server.process.pid);
        const result = await driveUnary(client, measure);
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
        };
        unary.push(run);
        process.stdout.write(
          `  unary task r${round} ${target.id}: ${num(run.callsPerSecond)} calls/s, server CPU ${num(cpuMicrosPerCall)} µs/call, ${run.invalid} invalid\n`,
        );
      } finally {
        client.close();
        await server.stop();
      }
    }
  }
  const levels = [1, 10];
  const streaming: GrpcStreamRun[] = [];
  for (const subscribers of levels) {
    for (const target of TARGETS.filter((t) => t.id !== 'grpc-echo')) {
      const server = await startServer(target.server, [...target.args, '--mode', 'stream', '--events', String(EVENTS_PER_TASK)]);
      const client = new Client(`127.0.0.1:${server.port}`, credentials.createInsecure(), CLIENT_OPTIONS);
      try {
        await driveStreams(client, subscribers, 1);
        const result = await driveStreams(client, subscribers, measure);
        streaming.push({ target: target.id, subscribers, ...result });
        process.stdout.write(
          `  stream ${subscribers} ${target.id}: ${num(result.eventsPerSecond)} events/s (${result.mismatches} mismatches)\n`,
        );
      } finally {
        client.close();
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
    String(unary.filter((r) => r.target === t.id).reduce((n, r) => n + r.invalid, 0)),
  ]);
  const withBaseline = TARGETS.some((t) => t.id === 'ours-grpc-baseline');
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
    `Unary \`SendMessage\` in task mode (submitted, working, one artifact, completed) over gRPC (plaintext, 127.0.0.1): ${UNARY_CONCURRENCY} concurrent calls on one grpc-js channel for ${measure} s after ${warmup} s warm-up, ${rounds} round(s) with a fresh server process per run (servers interleaved within a round); every answer is decoded and must be a COMPLETED task. Medians over rounds. Every server runs with the same grpc-js options (\`${JSON.stringify(GRPC_SERVER_OPTIONS)}\`); the load generator's channel has \`${JSON.stringify(CLIENT_OPTIONS)}\` for all of them.${withBaseline ? ' "before" is our server with the a2a-grpc build of `A2A_GRPC_BASELINE` (same core), measured in the same run.' : ''}`,
    '',
    table(['server', 'calls/s', 'server CPU µs/call', 'invalid'], unaryRows),
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
