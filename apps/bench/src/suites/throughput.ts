import { cpus } from 'node:os';
import { startServer } from '../lib/children.js';
import { median, num, passFail, ratio, table } from '../lib/format.js';
import { GENERATOR_BOUND, measureServer, medianOf, type ReplyMode, roundRatios, type ServerRun } from '../lib/load.js';
import { pinLoadGenerator } from '../lib/pinning.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

/**
 * The servers, in the order of every round. Each goal's pair runs back to back (official | ours |
 * ours-governed), so drift within a round lands in a ratio as little as it can; rounds alternate direction.
 */
const TARGETS = [
  { id: 'node-echo', server: 'echo', args: [], label: 'bare node:http echo (the floor)' },
  { id: 'official', server: 'official', args: [], label: 'official @a2a-js/sdk (express)' },
  { id: 'ours', server: 'ours', args: [], label: 'ours on node:http' },
  { id: 'ours-governed', server: 'ours', args: ['--governed'], label: 'ours on node:http, full governance' },
];

/** The goals of issue 33 (server ratios within noise of the run before the diet). */
const GOALS: Array<{ mode: ReplyMode; name: string; num: string; den: string; min: number }> = [
  { mode: 'message', name: 'ours / official', num: 'ours', den: 'official', min: 4 },
  { mode: 'message', name: 'governed / ungoverned', num: 'ours-governed', den: 'ours', min: 0.9 },
  { mode: 'task', name: 'ours / official', num: 'ours', den: 'official', min: 3 },
  { mode: 'task', name: 'governed / ungoverned', num: 'ours-governed', den: 'ours', min: 0.9 },
];

export async function runThroughput(options: RunOptions): Promise<SuiteResult> {
  // More, shorter rounds: a burst of other work spoils one round, and the median drops it (decision 0036).
  const rounds = options.quick ? 2 : 5;
  const timing = options.quick
    ? { warmupSeconds: 1, warmupRequests: 3_000, warmupMaxSeconds: 6, seconds: 2 }
    : { warmupSeconds: 2, warmupRequests: 6_000, warmupMaxSeconds: 12, seconds: 3 };
  const targets = TARGETS.filter((t) => options.targets === undefined || options.targets.includes(t.id));
  const runs: ServerRun[] = [];
  const pins = pinLoadGenerator();
  try {
    for (const mode of ['message', 'task'] as const) {
      for (let round = 1; round <= rounds; round++) {
        for (const t of round % 2 ? targets : [...targets].reverse()) {
          const start = () => startServer(t.server, ['--mode', mode, ...t.args], { cpu: pins.serverCpu });
          runs.push(await measureServer(start, { round, mode, target: t.id }, timing));
        }
      }
    }
  } finally {
    pins.release();
  }

  const sections: string[] = [
    `autocannon (HTTP/1.1 keep-alive), 50 connections with one request in flight each, the same JSON-RPC \`SendMessage\` (header \`A2A-Version: 1.0\`, a fresh messageId per request) to each server; ${rounds} interleaved rounds (every other round in reverse order), a fresh child process per run, warm-up by time and request count, then ${timing.seconds} s measured. Every reply body is checked (the echoed text; task mode: state COMPLETED); a run with a mismatched body, a non-2xx reply, a socket error or a timeout is invalid and left out.`,
    '',
    pins.note,
    '',
    '**Message mode**: the executor answers with one Message. **Task mode**: submitted -> working -> one text artifact -> completed; the blocking `SendMessage` returns the completed task.',
  ];
  for (const mode of ['message', 'task'] as const) {
    const rows = targets.map(({ id, label }) => {
      const mine = runs.filter((r) => r.mode === mode && r.target === id);
      const ok = mine.filter((r) => r.valid);
      const perRound = mine.map((r) =>
        r.valid ? `${num(r.requestsPerSecond)}${r.generatorBusy > GENERATOR_BOUND ? ' (LG-bound)' : ''}` : r.error ? 'error' : 'invalid',
      );
      return [
        label,
        num(median(ok.map((r) => r.requestsPerSecond))),
        perRound.join(' / '),
        num(median(ok.map((r) => r.latencyP99Ms)), 2),
        num(median(ok.map((r) => r.cpuMicrosPerRequest))),
        num(median(ok.map((r) => r.generatorCpuMicrosPerRequest))),
        `${ok.length}/${mine.length}`,
      ];
    });
    const header = ['server', 'req/s (median)', 'req/s per round', 'p99 ms', 'server CPU µs/req', 'autocannon CPU µs/req', 'valid runs'];
    sections.push('', `### ${mode === 'message' ? 'Message mode' : 'Task mode'}`, '', table(header, rows));
  }
  const goals = GOALS.filter((g) => targets.some((t) => t.id === g.num) && targets.some((t) => t.id === g.den)).map((g) => {
    const ofMode = runs.filter((r) => r.mode === g.mode);
    const perRound = roundRatios(ofMode, g.num, g.den);
    // The same pair by server CPU per request (den / num): what the server costs, whoever set the pace.
    const cpu = (target: string) => medianOf(ofMode, target, (r) => r.cpuMicrosPerRequest);
    return { ...g, byRate: median(perRound), byCpu: cpu(g.den) / cpu(g.num), perRound };
  });
  const loads = runs.map((r) => r.loadAverage1m);
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
    `The goals are judged on req/s. "server CPU per request" is the inverse ratio of the servers' CPU per request (user + system from \`/proc\`): it does not depend on who set the pace, so it is the figure to read when a run is LG-bound (autocannon over ${GENERATOR_BOUND * 100}% of its core). 1-minute load average over the runs: ${num(Math.min(...loads), 1)} to ${num(Math.max(...loads), 1)} on ${cpus().length} CPUs.`,
  );
  const failures = runs.filter((r) => r.error);
  if (failures.length > 0)
    sections.push('', 'Runs that failed:', '', ...failures.map((r) => `- ${r.mode} round ${r.round} ${r.target}: ${r.error}`));
  return { title: 'Server throughput', markdown: sections.join('\n'), data: { rounds, runs, goals } };
}
