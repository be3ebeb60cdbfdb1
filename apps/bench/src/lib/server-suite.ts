import { loadavg } from 'node:os';
import { type ServerChild, startServer } from './children.js';
import { processCpuSeconds } from './cpu.js';
import { columns, errorText, median, num, passFail, ratio } from './format.js';
import { GENERATOR_BOUND, type LoadResult, load, type ReplyMode } from './load.js';

/** A server under test: `start` runs a fresh process in `mode`, pinned to `cpu` when given. */
export type Target = { id: string; label: string; start(mode: ReplyMode, cpu: number | undefined): Promise<ServerChild> };

/** `src/servers/<server>.ts --mode <mode> ...args` as a target. */
export const serverTarget = (id: string, server: string, args: string[], label: string): Target => ({
  id,
  label,
  start: (mode, cpu) => startServer(server, ['--mode', mode, ...args], { cpu }),
});

/** A goal of a suite: `num / den` at least `min` in `mode`, judged on req/s, or on server CPU per request (den / num). */
export type Goal = { mode: ReplyMode; name: string; num: string; den: string; min: number; by?: 'cpu' };

/** One run: a fresh server process, its load figures, its CPU (user + system, µs) per request (NaN without procfs). */
export type ServerRun = LoadResult & {
  round: number;
  mode: ReplyMode;
  target: string;
  cpuMicrosPerRequest: number;
  loadAverage1m: number;
  error?: string;
};

/** Warm-up: at least `warmupSeconds` and `warmupRequests` requests, at most `warmupMaxSeconds`; then `seconds` measured. */
export type Timing = { warmupSeconds: number; warmupRequests: number; warmupMaxSeconds: number; seconds: number };

/** What drives a server: autocannon on JSON-RPC by default. */
export type Drive = (server: ServerChild, mode: ReplyMode, seconds: number) => Promise<LoadResult>;
const autocannon: Drive = (server, mode, seconds) => load(server.url, mode, seconds);

const FAILED: LoadResult = {
  requestsPerSecond: Number.NaN,
  latencyP50Ms: Number.NaN,
  latencyP99Ms: Number.NaN,
  total2xx: 0,
  failed: 0,
  valid: false,
  generatorCpuMicrosPerRequest: Number.NaN,
  generatorBusy: Number.NaN,
};

/**
 * Starts a server, warms it up by time and by request count (V8 optimizes the request path over the
 * first few thousand requests, decision 0040), then measures `timing.seconds`. A failure is an invalid run.
 */
async function measure(target: Target, run: Pick<ServerRun, 'round' | 'mode'>, timing: Timing, cpu: number | undefined, drive: Drive) {
  let server: ServerChild | undefined;
  try {
    server = await target.start(run.mode, cpu);
    const { warmupSeconds, warmupRequests, warmupMaxSeconds } = timing;
    for (let warmed = 0, s = 0; s < warmupMaxSeconds && (s < warmupSeconds || warmed < warmupRequests); s++) {
      warmed += (await drive(server, run.mode, 1)).total2xx;
    }
    const cpuBefore = processCpuSeconds(server.process.pid) ?? Number.NaN;
    const result = await drive(server, run.mode, timing.seconds);
    const serverCpu = (processCpuSeconds(server.process.pid) ?? Number.NaN) - cpuBefore;
    const cpuMicrosPerRequest = (serverCpu * 1e6) / result.total2xx;
    process.stdout.write(
      `  ${run.mode} r${run.round} ${target.id}: ${num(result.requestsPerSecond)} req/s, server CPU ${num(cpuMicrosPerRequest)} µs/req, load generator ${num(result.generatorBusy * 100)}% of its core${result.valid ? '' : ' INVALID'}\n`,
    );
    return { ...run, target: target.id, ...result, cpuMicrosPerRequest, loadAverage1m: loadavg()[0] ?? 0 };
  } catch (error) {
    return {
      ...run,
      target: target.id,
      ...FAILED,
      cpuMicrosPerRequest: Number.NaN,
      loadAverage1m: loadavg()[0] ?? 0,
      error: errorText(error),
    };
  } finally {
    await server?.stop();
  }
}

/**
 * Every target in every mode for `rounds` rounds, a fresh server process per run. Within a round the targets run
 * in order, every other round in reverse, so the targets a goal compares stay neighbours and drift lands in a ratio
 * as little as it can.
 */
export async function runServers(
  targets: Target[],
  modes: readonly ReplyMode[],
  rounds: number,
  timing: Timing,
  cpu?: number,
  drive = autocannon,
) {
  const runs: ServerRun[] = [];
  for (const mode of modes) {
    for (let round = 1; round <= rounds; round++) {
      for (const target of round % 2 ? targets : [...targets].reverse())
        runs.push(await measure(target, { round, mode }, timing, cpu, drive));
    }
  }
  return runs;
}

/** The median of `pick` over the valid runs of `target` in `runs`. */
export const medianOf = (runs: ServerRun[], target: string, pick: (run: ServerRun) => number): number =>
  median(runs.filter((r) => r.target === target && r.valid).map(pick));

/** Per round, the req/s ratio `num / den` of two targets' valid runs (rounds where both are valid). */
function roundRatios(runs: ServerRun[], num: string, den: string): number[] {
  const valid = (target: string, round: number) => runs.find((r) => r.target === target && r.round === round && r.valid);
  return [...new Set(runs.map((r) => r.round))].flatMap((round) => {
    const [a, b] = [valid(num, round), valid(den, round)];
    return a && b ? [a.requestsPerSecond / b.requestsPerSecond] : [];
  });
}

/** The goals of `goals` whose targets ran, with the req/s ratio (median of rounds) and the server CPU ratio. */
export function judge(runs: ServerRun[], goals: Goal[]) {
  return goals
    .filter((g) => runs.some((r) => r.target === g.num) && runs.some((r) => r.target === g.den))
    .map((g) => {
      const ofMode = runs.filter((r) => r.mode === g.mode);
      const perRound = roundRatios(ofMode, g.num, g.den);
      // The same pair by server CPU per request (den / num): what the server costs, whoever set the pace.
      const cpu = (target: string) => medianOf(ofMode, target, (r) => r.cpuMicrosPerRequest);
      const [byRate, byCpu] = [median(perRound), cpu(g.den) / cpu(g.num)];
      return { ...g, perRound, byRate, byCpu, pass: (g.by === 'cpu' ? byCpu : byRate) >= g.min };
    });
}

/**
 * The report of a server suite: per mode a table of the targets (medians of the valid runs; "LG-bound" marks a run
 * whose load generator used over GENERATOR_BOUND of its core), then the goals and any failed runs.
 */
const p99 = (r: ServerRun) => r.latencyP99Ms;

export function serverReport(runs: ServerRun[], targets: Target[], goals: Goal[]): string[] {
  const sections: string[] = [];
  for (const mode of new Set(runs.map((r) => r.mode))) {
    const ofMode = runs.filter((r) => r.mode === mode);
    const mine = (target: Target) => ofMode.filter((r) => r.target === target.id);
    const round = (r: ServerRun) =>
      r.valid ? `${num(r.requestsPerSecond)}${r.generatorBusy > GENERATOR_BOUND ? ' (LG-bound)' : ''}` : r.error ? 'error' : 'invalid';
    const med = (t: Target, pick: (r: ServerRun) => number) => medianOf(ofMode, t.id, pick);
    sections.push(
      `**${mode === 'message' ? 'Message' : 'Task'} mode**`,
      '',
      columns(targets, [
        ['server', (t) => t.label],
        ['req/s (median)', (t) => num(med(t, (r) => r.requestsPerSecond))],
        ['req/s per round', (t) => mine(t).map(round).join(' / ')],
        ['p99 ms', (t) => num(med(t, p99), 2)],
        ['server CPU µs/req', (t) => num(med(t, (r) => r.cpuMicrosPerRequest))],
        ['load generator CPU µs/req', (t) => num(med(t, (r) => r.generatorCpuMicrosPerRequest))],
        ['valid runs', (t) => `${mine(t).filter((r) => r.valid).length}/${mine(t).length}`],
      ]),
      '',
    );
  }
  sections.push(
    columns(judge(runs, goals), [
      ['mode', (g) => g.mode],
      ['goal', (g) => g.name],
      ['req/s (median of rounds)', (g) => ratio(g.byRate)],
      ['per round', (g) => g.perRound.map(ratio).join(' / ')],
      ['server CPU per request', (g) => ratio(g.byCpu)],
      ['target', (g) => `>= ${g.min}x${g.by === 'cpu' ? ' (server CPU)' : ''}`],
      ['result', (g) => `**${passFail(g.pass)}**`],
    ]),
  );
  const failures = runs.filter((r) => r.error);
  if (failures.length > 0)
    sections.push('', 'Runs that failed:', '', ...failures.map((r) => `- ${r.mode} round ${r.round} ${r.target}: ${r.error}`));
  return sections;
}
