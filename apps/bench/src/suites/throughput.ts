import { cpus, loadavg } from 'node:os';
import { startServer } from '../lib/children.js';
import { processCpuSeconds } from '../lib/cpu.js';
import { median, num, passFail, ratio, table } from '../lib/format.js';
import { GENERATOR_BOUND, type LoadResult, load, type ReplyMode } from '../lib/load.js';
import { describePinning, pinLoadGenerator } from '../lib/pinning.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

/**
 * The servers, in the order of every round (src/servers/<file>.ts). Each goal's pair runs back to
 * back (official | ours | ours-governed), so drift within a round lands in a ratio as little as it
 * can; rounds alternate direction, which keeps neighbours neighbours.
 */
const TARGETS = [
  { id: 'node-echo', file: 'node-echo', label: 'bare node:http echo (the floor)' },
  { id: 'official', file: 'official', label: 'official @a2a-js/sdk (express)' },
  { id: 'ours', file: 'ours', label: 'ours on node:http' },
  { id: 'ours-governed', file: 'ours-governed', label: 'ours on node:http, full governance' },
] as const;
type TargetId = (typeof TARGETS)[number]['id'];

/** The goals of issue 33 (server ratios within noise of the run before the diet). */
const GOALS: Array<{ mode: ReplyMode; name: string; num: TargetId; den: TargetId; min: number }> = [
  { mode: 'message', name: 'ours / official', num: 'ours', den: 'official', min: 4 },
  { mode: 'message', name: 'governed / ungoverned', num: 'ours-governed', den: 'ours', min: 0.9 },
  { mode: 'task', name: 'ours / official', num: 'ours', den: 'official', min: 3 },
  { mode: 'task', name: 'governed / ungoverned', num: 'ours-governed', den: 'ours', min: 0.9 },
];

export interface ThroughputRun extends LoadResult {
  round: number;
  mode: ReplyMode;
  target: TargetId;
  /** Server CPU (user + system) per request of the measured run, in microseconds (NaN without procfs). */
  cpuMicrosPerRequest: number;
  loadAverage1m: number;
  error?: string;
}

/** One fresh server process: warm-up (time and request count), then the measured run. */
async function measureOne(
  { id: target, file }: (typeof TARGETS)[number],
  mode: ReplyMode,
  round: number,
  quick: boolean,
  cpu: number | undefined,
): Promise<ThroughputRun> {
  const warmup = { seconds: quick ? 1 : 2, requests: quick ? 3_000 : 6_000, maxSeconds: quick ? 6 : 12 };
  const measureSeconds = quick ? 2 : 3;
  const server = await startServer(file, ['--mode', mode], cpu === undefined ? {} : { cpu });
  try {
    // V8 optimizes the request path over the first few thousand requests (decision 0040): warm up by count too.
    for (let warmed = 0, spent = 0; spent < warmup.maxSeconds && (spent < warmup.seconds || warmed < warmup.requests); spent += 1) {
      warmed += (await load(server.url, mode, 1)).total2xx;
    }
    const cpuBefore = processCpuSeconds(server.process.pid);
    const result = await load(server.url, mode, measureSeconds);
    const cpuAfter = processCpuSeconds(server.process.pid);
    const cpuMicrosPerRequest =
      cpuBefore === undefined || cpuAfter === undefined || result.total2xx === 0
        ? Number.NaN
        : ((cpuAfter - cpuBefore) * 1e6) / result.total2xx;
    process.stdout.write(
      `  ${mode} r${round} ${target}: ${num(result.requestsPerSecond)} req/s, server CPU ${num(cpuMicrosPerRequest)} µs/req, autocannon ${num(result.generatorCpuMicrosPerRequest)} µs/req (${num(result.generatorBusy * 100)}% of its core)${result.valid ? '' : ' INVALID'}\n`,
    );
    return { round, mode, target, cpuMicrosPerRequest, loadAverage1m: loadavg()[0] ?? 0, ...result };
  } finally {
    await server.stop();
  }
}

const failedRun = (round: number, mode: ReplyMode, target: TargetId, error: unknown): ThroughputRun => ({
  round,
  mode,
  target,
  requestsPerSecond: Number.NaN,
  cpuMicrosPerRequest: Number.NaN,
  latencyP50Ms: Number.NaN,
  latencyP99Ms: Number.NaN,
  total2xx: 0,
  errors: 0,
  timeouts: 0,
  non2xx: 0,
  mismatches: 0,
  valid: false,
  generatorCpuMicrosPerRequest: Number.NaN,
  generatorBusy: Number.NaN,
  loadAverage1m: loadavg()[0] ?? 0,
  error: error instanceof Error ? error.message : String(error),
});

export async function runThroughput(options: RunOptions): Promise<SuiteResult> {
  // More, shorter rounds: a burst of other work spoils one round, and the median drops it (decision 0036).
  const rounds = options.quick ? 2 : 5;
  const targets = TARGETS.filter((t) => options.targets === undefined || options.targets.includes(t.id));
  const runs: ThroughputRun[] = [];
  const pins = pinLoadGenerator();
  try {
    for (const mode of ['message', 'task'] as const) {
      for (let round = 1; round <= rounds; round++) {
        for (const target of round % 2 ? targets : [...targets].reverse()) {
          try {
            runs.push(await measureOne(target, mode, round, options.quick, pins.pinned ? pins.serverCpu : undefined));
          } catch (error) {
            runs.push(failedRun(round, mode, target.id, error));
          }
        }
      }
    }
  } finally {
    pins.release();
  }

  const valid = (mode: ReplyMode, target: TargetId) => runs.filter((r) => r.mode === mode && r.target === target && r.valid);
  /** Median over rounds of the req/s ratio within each round (both runs valid). */
  const roundRatio = (mode: ReplyMode, n: TargetId, d: TargetId): number[] => {
    const perRound: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      const a = valid(mode, n).find((r) => r.round === round);
      const b = valid(mode, d).find((r) => r.round === round);
      if (a && b) perRound.push(a.requestsPerSecond / b.requestsPerSecond);
    }
    return perRound;
  };
  /** The same pair by server CPU per request (den / num): what the server costs, whoever set the pace. */
  const cpuRatio = (mode: ReplyMode, n: TargetId, d: TargetId): number =>
    median(valid(mode, d).map((r) => r.cpuMicrosPerRequest)) / median(valid(mode, n).map((r) => r.cpuMicrosPerRequest));

  const sections: string[] = [
    `autocannon (HTTP/1.1 keep-alive), 50 connections with one request in flight each, the same JSON-RPC \`SendMessage\` (header \`A2A-Version: 1.0\`, a fresh messageId per request) to each server; ${rounds} interleaved rounds (every other round in reverse order), a fresh child process per run, warm-up by time and request count, then ${options.quick ? 2 : 3} s measured. Every reply body is checked (the echoed text; task mode: state COMPLETED); a run with a mismatched body, a non-2xx reply, a socket error or a timeout is invalid and left out.`,
    '',
    describePinning(pins),
    '',
    '**Message mode**: the executor answers with one Message. **Task mode**: submitted -> working -> one text artifact -> completed; the blocking `SendMessage` returns the completed task.',
  ];
  for (const mode of ['message', 'task'] as const) {
    const rows = targets.map(({ id, label }) => {
      const mine = runs.filter((r) => r.mode === mode && r.target === id);
      const ok = mine.filter((r) => r.valid);
      return [
        label,
        num(median(ok.map((r) => r.requestsPerSecond))),
        mine
          .map((r) =>
            r.valid
              ? `${num(r.requestsPerSecond)}${r.generatorBusy > GENERATOR_BOUND ? ' (LG-bound)' : ''}`
              : r.error
                ? 'error'
                : 'invalid',
          )
          .join(' / '),
        num(median(ok.map((r) => r.latencyP99Ms)), 2),
        num(median(ok.map((r) => r.cpuMicrosPerRequest))),
        num(median(ok.map((r) => r.generatorCpuMicrosPerRequest))),
        `${ok.length}/${mine.length}`,
      ];
    });
    sections.push(
      '',
      `### ${mode === 'message' ? 'Message mode' : 'Task mode'}`,
      '',
      table(['server', 'req/s (median)', 'req/s per round', 'p99 ms', 'server CPU µs/req', 'autocannon CPU µs/req', 'valid runs'], rows),
    );
  }
  const goals = GOALS.filter((g) => targets.some((t) => t.id === g.num) && targets.some((t) => t.id === g.den)).map((g) => {
    const perRound = roundRatio(g.mode, g.num, g.den);
    const byRate = median(perRound);
    const byCpu = cpuRatio(g.mode, g.num, g.den);
    return { ...g, byRate, byCpu, perRound };
  });
  sections.push(
    '',
    '### Goals',
    '',
    table(
      ['mode', 'ratio', 'req/s (median of rounds)', 'per round', 'server CPU per request', 'target', 'result (req/s)'],
      goals.map((g) => [
        g.mode,
        g.name,
        ratio(g.byRate),
        g.perRound.map(ratio).join(' / '),
        ratio(g.byCpu),
        `>= ${g.min}x`,
        passFail(g.byRate >= g.min),
      ]),
    ),
    '',
    `The goals are judged on req/s. "server CPU per request" is the inverse ratio of the servers' CPU per request (user + system from \`/proc\`): it does not depend on who set the pace, so it is the figure to read when a run is LG-bound (autocannon over ${GENERATOR_BOUND * 100}% of its core). 1-minute load average over the runs: ${num(Math.min(...runs.map((r) => r.loadAverage1m)), 1)} to ${num(Math.max(...runs.map((r) => r.loadAverage1m)), 1)} on ${cpus().length} CPUs.`,
  );
  const failures = runs.filter((r) => r.error);
  if (failures.length > 0)
    sections.push('', 'Runs that failed:', '', ...failures.map((r) => `- ${r.mode} round ${r.round} ${r.target}: ${r.error}`));
  return { title: 'Server throughput', markdown: sections.join('\n'), data: { rounds, runs, goals } };
}
