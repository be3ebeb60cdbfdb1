import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { startServer } from '../lib/children.js';
import { processCpuSeconds } from '../lib/cpu.js';
import { median, num, passFail, ratio, table } from '../lib/format.js';
import { GENERATOR_BOUND, type LoadResult, type ReplyMode, load, plainRequests, signedRequests } from '../lib/load.js';
import { sendMessageBody } from '../lib/fixtures.js';
import { describePinning, pinLoadGenerator } from '../lib/pinning.js';
import { createHmacSignedRequestPool, createSignedRequestPool } from '../lib/signed.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

/**
 * The servers, in the order of every round (src/servers/<file>.ts). Each goal's pair runs back to
 * back, so that drift within a round (other work on the machine, thermal state) lands in the ratio
 * as little as it can: ours-verified-floor | ours-verified-hmac | ours | ours-governed | ours-traced, and official |
 * ours-redis. `ours` has two neighbours for four goals: the two with the least headroom (governed,
 * verified hmac) get them; ours / official and ours-redis / ours, far from their bounds, are a run
 * or two apart. Rounds alternate direction, which keeps neighbours neighbours.
 */
const TARGETS = [
  { id: 'node-echo', file: 'node-echo', label: 'bare node:http echo' },
  { id: 'express-echo', file: 'express-echo', label: 'bare express 5 echo (express.json())' },
  { id: 'ours-express', file: 'ours-express', label: 'ours mounted on express 5' },
  { id: 'official', file: 'official', label: 'official @a2a-js/sdk (express)' },
  { id: 'ours-redis', file: 'ours-redis', label: 'ours on node:http, Redis task store + event bus (one replica)' },
  // Bench only, a reference row (decision 0054): the governed server with an authenticator that
  // does only the hashing no verifier can skip and accepts; what the fast path cannot go below.
  {
    id: 'ours-verified-floor',
    file: 'ours-verified-floor',
    label:
      'reference, bench only: ours on node:http, full governance + the floor of a verifier (body SHA-256, HMAC over a real-size base, accepts)',
  },
  {
    id: 'ours-verified-hmac',
    file: 'ours-verified',
    label: 'ours on node:http, full governance + verified callers (RFC 9421, hmac-sha256 fast path)',
  },
  { id: 'ours', file: 'ours', label: 'ours on node:http' },
  { id: 'ours-governed', file: 'ours-governed', label: 'ours on node:http, full governance' },
  { id: 'ours-traced', file: 'ours-traced', label: 'ours on node:http, full governance + OpenTelemetry instrumentation, no SDK' },
  {
    id: 'ours-traced-sdk',
    file: 'ours-traced',
    label: 'ours on node:http, full governance + OpenTelemetry instrumentation, SDK registered',
    args: ['--sdk'],
  },
  { id: 'ours-verified', file: 'ours-verified', label: 'ours on node:http, full governance + verified callers (RFC 9421, Ed25519)' },
] as const;
// `A2A_VERIFY_BASELINE=<another checkout's root>` (its packages built) adds the fast-path row served
// by that checkout's apps/bench and packages: the verified server before and after, in one run.
const BASELINE = process.env.A2A_VERIFY_BASELINE;
const BEFORE = {
  id: 'ours-verified-hmac-before',
  file: 'ours-verified',
  label: 'ours on node:http, full governance + verified callers (hmac-sha256), the build of A2A_VERIFY_BASELINE (before)',
} as const;
// Just before the fast-path row, so that row stays next to `ours` (its goal's pair).
const ALL_TARGETS: ReadonlyArray<{ id: string; file: string; label: string; args?: readonly string[] }> = BASELINE
  ? [
      ...TARGETS.slice(
        0,
        TARGETS.findIndex((t) => t.id === 'ours-verified-hmac'),
      ),
      BEFORE,
      ...TARGETS.slice(TARGETS.findIndex((t) => t.id === 'ours-verified-hmac')),
    ]
  : TARGETS;
type TargetId = (typeof TARGETS)[number]['id'] | typeof BEFORE.id;

const RATIOS: Array<{ name: string; num: TargetId; den: TargetId }> = [
  { name: 'ours / official', num: 'ours', den: 'official' },
  { name: 'ours / express-echo', num: 'ours', den: 'express-echo' },
  { name: 'ours / node-echo', num: 'ours', den: 'node-echo' },
  { name: 'governed / ungoverned', num: 'ours-governed', den: 'ours' },
  { name: 'governed + verified (Ed25519) / ungoverned', num: 'ours-verified', den: 'ours' },
  { name: 'governed + verified (hmac-sha256) / ungoverned', num: 'ours-verified-hmac', den: 'ours' },
  { name: 'verifier floor (reference: hashing only, accepts) / ungoverned', num: 'ours-verified-floor', den: 'ours' },
  ...(BASELINE ? [{ name: 'governed + verified (hmac-sha256), before / ungoverned', num: BEFORE.id, den: 'ours' } as const] : []),
  { name: 'traced, no SDK / governed', num: 'ours-traced', den: 'ours-governed' },
  { name: 'traced, SDK / governed', num: 'ours-traced-sdk', den: 'ours-governed' },
  { name: 'ours-express / official', num: 'ours-express', den: 'official' },
  { name: 'official / express-echo', num: 'official', den: 'express-echo' },
  { name: 'ours-redis / ours (in-memory)', num: 'ours-redis', den: 'ours' },
  { name: 'ours-redis / official', num: 'ours-redis', den: 'official' },
];

/** Largest over smallest of a ratio's rounds, as "+x%" (how far the rounds disagree). */
function spread(values: number[]): string {
  if (values.length < 2) return 'n/a';
  return `+${num((Math.max(...values) / Math.min(...values) - 1) * 100)}%`;
}

export interface ThroughputRun extends LoadResult {
  round: number;
  mode: ReplyMode;
  target: TargetId;
  /** Server CPU (user + system) per request of the measured run, in microseconds (NaN without procfs). */
  cpuMicrosPerRequest: number;
  /** 1-minute load average when the measured run ended: other work on the machine. */
  loadAverage1m: number;
  error?: string;
}

export async function runThroughput(options: RunOptions): Promise<SuiteResult> {
  // More, shorter rounds: a burst of other work on the shared machine then spoils one round of
  // several rather than a long run, and the median over rounds drops it (decision 0036).
  const rounds = options.quick ? 2 : 5;
  const warmupSeconds = options.quick ? 1 : 2;
  // Warm-up is also counted in requests: V8 optimizes the request path (on background threads
  // that count as server CPU) over the first few thousand requests, more of it the more code a
  // server runs; a time-only warm-up on a loaded machine left that compile work in the measured
  // run of the slower servers (decision 0040).
  const warmupRequests = options.quick ? 3_000 : 6_000;
  const warmupMaxSeconds = options.quick ? 6 : 12;
  const measureSeconds = options.quick ? 2 : 3;
  const runs: ThroughputRun[] = [];
  // `--targets a,b` runs a subset (a figure for one row without the whole suite).
  const targets = ALL_TARGETS.filter((target) => options.targets === undefined || options.targets.includes(target.id));
  const pins = pinLoadGenerator();
  try {
    for (const mode of ['message', 'task'] as const) {
      for (let round = 1; round <= rounds; round++) {
        // Every other round in reverse order, so no target always runs first (or last) in a round.
        for (const target of round % 2 ? targets : [...targets].reverse()) {
          // A fresh process per run, so no run inherits another's heap or JIT state.
          const before = target.id === BEFORE.id && BASELINE !== undefined;
          const server = await startServer(target.file, ['--mode', mode, ...(target.args ?? [])], {
            ...(before ? { appDir: resolve(BASELINE, 'apps/bench') } : {}),
            ...(pins.pinned ? { cpu: pins.serverCpu } : {}),
          });
          try {
            // Signed runs: every request carries its own signature (a replay is refused), made before the clock starts.
            const bodyOf = (id: string) => sendMessageBody('hello', id);
            const signatures =
              target.id === 'ours-verified'
                ? createSignedRequestPool(`${server.url}/a2a/jsonrpc`, bodyOf)
                : target.id === 'ours-verified-hmac' || target.id === 'ours-verified-floor' || target.id === BEFORE.id
                  ? createHmacSignedRequestPool(`${server.url}/a2a/jsonrpc`, bodyOf)
                  : undefined;
            // One source for warm-up and measured run, so no messageId repeats between them; signed
            // requests are serialized whole before each run's clock starts.
            const requests = signatures ? signedRequests(server.url, signatures) : plainRequests(server.url);
            for (let warmed = 0, spent = 0; spent < warmupMaxSeconds && (spent < warmupSeconds || warmed < warmupRequests); spent += 1) {
              await requests.prepare(signatures ? 25_000 : 0);
              warmed += (await load(server.url, mode, 1, 50, requests)).total2xx;
            }
            await requests.prepare(signatures ? 25_000 * measureSeconds : 0);
            const cpuBefore = processCpuSeconds(server.process.pid);
            const result = await load(server.url, mode, measureSeconds, 50, requests);
            const cpuAfter = processCpuSeconds(server.process.pid);
            const cpuMicrosPerRequest =
              cpuBefore === undefined || cpuAfter === undefined || result.total2xx === 0
                ? Number.NaN
                : ((cpuAfter - cpuBefore) * 1e6) / result.total2xx;
            runs.push({ round, mode, target: target.id as TargetId, cpuMicrosPerRequest, loadAverage1m: loadavg()[0] ?? 0, ...result });
            process.stdout.write(
              `  ${mode} r${round} ${target.id}: ${num(result.requestsPerSecond)} req/s p50 ${result.latencyP50Ms} ms p99 ${result.latencyP99Ms} ms, server CPU ${num(cpuMicrosPerRequest)} µs/req, load generator ${num(result.generatorCpuMicrosPerRequest)} µs/req (${num(result.generatorBusy * 100)}% of its core)${result.valid ? '' : ' INVALID'}\n`,
            );
          } catch (error) {
            runs.push({
              round,
              mode,
              target: target.id as TargetId,
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
          } finally {
            await server.stop();
          }
        }
      }
    }
  } finally {
    pins.release();
  }

  const find = (mode: ReplyMode, round: number, target: TargetId) =>
    runs.find((r) => r.mode === mode && r.round === round && r.target === target);
  /** Median over rounds of the ratio computed within each round (both runs valid). */
  const roundRatio = (mode: ReplyMode, n: TargetId, d: TargetId): { median: number; perRound: number[] } => {
    const perRound: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      const a = find(mode, round, n);
      const b = find(mode, round, d);
      if (a?.valid && b?.valid) perRound.push(a.requestsPerSecond / b.requestsPerSecond);
    }
    return { median: median(perRound), perRound };
  };

  const sections: string[] = [
    `The bench's own HTTP/1.1 keep-alive load generator (\`src/lib/http-load.ts\`, validated against autocannon: decision 0036), 50 connections with one request in flight each, the same JSON-RPC \`SendMessage\` request (header \`A2A-Version: 1.0\`, a fresh messageId per request; signed rows: a pool of requests signed and serialized before the clock starts) to each server; ${rounds} interleaved rounds (every server once per round, every other round in reverse order; this run's order, ${targets.map((t) => t.id).join(', ')}, runs each goal's pair back to back where it can, so drift within a round lands in a goal's ratio as little as it can), a fresh child process per run, warm-up of ${warmupSeconds} s and at least ${warmupRequests} requests (at most ${warmupMaxSeconds} s) then ${measureSeconds} s measured. Every reply body is checked (JSON-RPC result of the right shape with the echoed text; task mode: state COMPLETED); a run with mismatched bodies, non-2xx replies, socket errors or timeouts is marked invalid and left out of the ratios.`,
    '',
    describePinning(
      pins,
      targets.some((t) => t.id === 'ours-redis'),
    ),
    '',
    '**Message mode**: the executor answers with one Message. **Task mode**: submitted -> working -> one text artifact -> completed; the blocking `SendMessage` returns the completed task. The echo servers build the same result shape per request without any A2A logic.',
  ];
  const data: Record<string, unknown> = { rounds, warmupSeconds, warmupRequests, warmupMaxSeconds, measureSeconds, runs };
  const goals: Record<string, { value: number; goal: string; pass: boolean }> = {};
  const cpuNotes: string[] = [];
  for (const mode of ['message', 'task'] as const) {
    const rows = ALL_TARGETS.filter((target) => targets.includes(target)).map((target) => {
      const mine = runs.filter((r) => r.mode === mode && r.target === target.id);
      const valid = mine.filter((r) => r.valid);
      const bound = (r: ThroughputRun) => (r.generatorBusy > GENERATOR_BOUND ? ' (LG-bound)' : '');
      return [
        target.label,
        num(median(valid.map((r) => r.requestsPerSecond))),
        mine.map((r) => (r.valid ? `${num(r.requestsPerSecond)}${bound(r)}` : r.error ? `error` : 'invalid')).join(' / '),
        num(median(valid.map((r) => r.latencyP50Ms)), 2),
        num(median(valid.map((r) => r.latencyP99Ms)), 2),
        num(median(valid.map((r) => r.cpuMicrosPerRequest).filter((x) => !Number.isNaN(x)))),
        `${num(median(valid.map((r) => r.generatorCpuMicrosPerRequest)))} / ${num(Math.max(...valid.map((r) => r.generatorBusy)) * 100)}%`,
        `${valid.length}/${mine.length}`,
      ];
    });
    const ratioRows = RATIOS.filter((r) => targets.some((t) => t.id === r.num) && targets.some((t) => t.id === r.den)).map((r) => {
      const value = roundRatio(mode, r.num, r.den);
      return [r.name, ratio(value.median), value.perRound.map(ratio).join(' / '), spread(value.perRound)];
    });
    sections.push(
      '',
      `### ${mode === 'message' ? 'Message mode' : 'Task mode'}`,
      '',
      table(
        [
          'server',
          'req/s (median)',
          'req/s per round',
          'p50 ms',
          'p99 ms',
          'server CPU µs/req (median)',
          'load generator CPU µs/req (median) / busiest run',
          'valid runs',
        ],
        rows,
      ),
      '',
      table(['ratio (within each round)', 'median', 'per round', 'spread (max/min)'], ratioRows),
    );
    const ours = roundRatio(mode, 'ours', 'official').median;
    const target = mode === 'message' ? 1.3 : 2;
    goals[`${mode}: ours >= ${target}x official`] = { value: ours, goal: `>= ${target}x`, pass: ours >= target };
    const governed = roundRatio(mode, 'ours-governed', 'ours').median;
    goals[`${mode}: governed at most 10% below ungoverned`] = { value: governed, goal: '>= 0.90x', pass: governed >= 0.9 };
    const verified = roundRatio(mode, 'ours-verified-hmac', 'ours').median;
    goals[`${mode}: governed + verified callers (hmac-sha256 fast path) >= 0.85x ungoverned`] = {
      value: verified,
      goal: '>= 0.85x',
      pass: verified >= 0.85,
    };
    if (mode === 'task') {
      // Issue 19: the Redis store costs round trips, but one replica keeps half the in-memory speed and twice the official SDK's.
      const redis = roundRatio(mode, 'ours-redis', 'ours').median;
      goals['task: Redis store >= 0.5x in-memory (one replica)'] = { value: redis, goal: '>= 0.5x', pass: redis >= 0.5 };
      const redisOfficial = roundRatio(mode, 'ours-redis', 'official').median;
      goals['task: Redis store >= 2x official'] = { value: redisOfficial, goal: '>= 2x', pass: redisOfficial >= 2 };
    }
    const traced = roundRatio(mode, 'ours-traced', 'ours-governed').median;
    goals[`${mode}: tracing on, no SDK, within 5% of governed`] = { value: traced, goal: '>= 0.95x', pass: traced >= 0.95 };
    const cpu = (target: TargetId) =>
      median(
        runs
          .filter((r) => r.mode === mode && r.target === target && r.valid && !Number.isNaN(r.cpuMicrosPerRequest))
          .map((r) => r.cpuMicrosPerRequest),
      );
    cpuNotes.push(
      `- ${mode} mode: verifying the caller (RFC 9421 Ed25519 signature, content-digest, nonce) costs ${num(cpu('ours-verified') - cpu('ours-governed'))} µs of server CPU per request on top of governance (${num(cpu('ours-verified'))} vs ${num(cpu('ours-governed'))} µs, medians).`,
      `- ${mode} mode: verifying the caller with the fast path (RFC 9421 hmac-sha256 under the request key of decision 0028, content-digest, nonce) costs ${num(cpu('ours-verified-hmac') - cpu('ours-governed'))} µs of server CPU per request on top of governance (${num(cpu('ours-verified-hmac'))} vs ${num(cpu('ours-governed'))} µs, medians).`,
      `- ${mode} mode: the floor of a verifier (reference row, bench only: body SHA-256, HMAC over a real-size base, accepts) costs ${num(cpu('ours-verified-floor') - cpu('ours-governed'))} µs of server CPU per request on top of governance (${num(cpu('ours-verified-floor'))} µs, median).`,
      ...(BASELINE
        ? [
            `- ${mode} mode: with the build of A2A_VERIFY_BASELINE (before), the fast path cost ${num(cpu(BEFORE.id) - cpu('ours-governed'))} µs of server CPU per request on top of governance (${num(cpu(BEFORE.id))} µs, median).`,
          ]
        : []),
      `- ${mode} mode: OpenTelemetry instrumentation costs ${num(cpu('ours-traced') - cpu('ours-governed'))} µs of server CPU per request with no SDK registered and ${num(cpu('ours-traced-sdk') - cpu('ours-governed'))} µs with the SDK (spans batched, metrics aggregated), on top of governance (${num(cpu('ours-traced'))} / ${num(cpu('ours-traced-sdk'))} vs ${num(cpu('ours-governed'))} µs, medians).`,
      `- ${mode} mode: the governance pipeline costs ${num(cpu('ours-governed') - cpu('ours'))} µs of server CPU per request (${num(cpu('ours-governed'))} vs ${num(cpu('ours'))} µs, medians), so by CPU the governed server runs at ${ratio(cpu('ours') / cpu('ours-governed'))} of the ungoverned one.`,
    );
  }
  sections.push(
    '',
    '### Goals',
    '',
    table(
      ['goal', 'measured', 'target', 'result'],
      Object.entries(goals).map(([name, g]) => [name, ratio(g.value), g.goal, passFail(g.pass)]),
    ),
    '',
    `1-minute load average of the machine over the runs: ${num(Math.min(...runs.map((r) => r.loadAverage1m)), 1)} to ${num(Math.max(...runs.map((r) => r.loadAverage1m)), 1)} on ${cpus().length} CPUs (pinning separates the server from the load generator, not from other work; with other work running the ratios spread wider).`,
    '',
    `A run marked LG-bound had the load generator's process over ${GENERATOR_BOUND * 100}% busy on its core: the generator, not the server, may have set its pace. The load generator's CPU per request is the bench process's user + system time over the measured run divided by the replies.`,
    '',
    'The goals are judged on req/s, as stated. Server CPU per request (user + system time of the server process over the measured run, from `/proc`) is steadier, because other work on the machine competes for the same two cores:',
    '',
    ...cpuNotes,
  );
  const failures = runs.filter((r) => r.error);
  if (failures.length > 0) {
    sections.push(
      '',
      'Runs that failed to start or run:',
      '',
      ...failures.map((r) => `- ${r.mode} round ${r.round} ${r.target}: ${r.error}`),
    );
  }
  data.goals = goals;
  return { title: 'Server throughput', markdown: sections.join('\n'), data };
}
