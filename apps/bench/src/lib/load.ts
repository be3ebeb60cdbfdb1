import { loadavg } from 'node:os';
import { A2A_VERSION_HEADER } from '@a2aplane/a2a-types';
import autocannon from 'autocannon';
import type { ServerChild } from './children.js';
import { processCpuSeconds } from './cpu.js';
import { sendMessageBody } from './fixtures.js';
import { errorText, median, num } from './format.js';

export type ReplyMode = 'message' | 'task';

/** Cheap per-reply checks (substring tests, so the load generator spends little CPU on them). */
export function verifier(mode: ReplyMode): (body: string) => boolean {
  const head = mode === 'message' ? '"result":{"message":' : '"result":{"task":';
  return (body) =>
    body.includes('"jsonrpc":"2.0"') &&
    body.includes(head) &&
    body.includes('"text":"echo: hello"') &&
    (mode === 'message' || body.includes('"state":"TASK_STATE_COMPLETED"'));
}

/** One measured autocannon run against a JSON-RPC endpoint, plus the load generator's own CPU. */
export interface LoadResult {
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  total2xx: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  mismatches: number;
  /** Every reply 2xx with a body `verifier(mode)` accepts, no socket error or timeout. */
  valid: boolean;
  /** CPU (user + system) of the bench process per reply, in microseconds. */
  generatorCpuMicrosPerRequest: number;
  /** Share of one core the bench process used over the run (1 = a whole core). */
  generatorBusy: number;
}

/** Above this share of its core, the load generator may be what limits the run. */
export const GENERATOR_BOUND = 0.9;

const HEADERS = { 'content-type': 'application/json', [A2A_VERSION_HEADER]: '1.0' };
// Ids unique across runs: servers answer a repeated messageId from the stored task (spec §3.3.1).
let sent = 0;

/**
 * autocannon against `${url}/a2a/jsonrpc`: `connections` keep-alive connections with one request in
 * flight each, the same `SendMessage` with a fresh messageId per request, every body checked.
 */
export async function load(url: string, mode: ReplyMode, seconds: number, connections = 50): Promise<LoadResult> {
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const result = await autocannon({
    url: `${url}/a2a/jsonrpc`,
    connections,
    duration: seconds,
    method: 'POST',
    headers: HEADERS,
    requests: [
      {
        setupRequest: (request) => {
          sent += 1;
          request.body = sendMessageBody('hello', `bench-${sent}`);
          return request;
        },
      },
    ],
    timeout: 10,
    verifyBody: verifier(mode),
  });
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMicros = cpu.user + cpu.system;
  const total2xx = result['2xx'];
  const replies = total2xx + result.non2xx;
  return {
    requestsPerSecond: total2xx / result.duration,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    total2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    mismatches: result.mismatches,
    valid: result.mismatches === 0 && result.non2xx === 0 && result.errors === 0 && total2xx > 0,
    generatorCpuMicrosPerRequest: replies === 0 ? Number.NaN : cpuMicros / replies,
    generatorBusy: cpuMicros / 1000 / (performance.now() - wallBefore),
  };
}

/** One run of a server suite: a fresh server process, its load figures and its CPU per request. */
export interface ServerRun extends LoadResult {
  round: number;
  mode: ReplyMode;
  target: string;
  /** Server CPU (user + system) per request of the measured run, in microseconds (NaN without procfs). */
  cpuMicrosPerRequest: number;
  loadAverage1m: number;
  error?: string;
}

const FAILED: LoadResult = {
  requestsPerSecond: Number.NaN,
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
};

export interface Timing {
  /** Warm-up: at least `warmupSeconds` and `warmupRequests` requests, at most `warmupMaxSeconds`. */
  warmupSeconds: number;
  warmupRequests: number;
  warmupMaxSeconds: number;
  seconds: number;
}

/**
 * Starts a server, warms it up by time and by request count (V8 optimizes the request path over the
 * first few thousand requests, decision 0040), then measures `timing.seconds`. A failure is an invalid run.
 */
export async function measureServer(
  start: () => Promise<ServerChild>,
  run: Pick<ServerRun, 'round' | 'mode' | 'target'>,
  timing: Timing,
): Promise<ServerRun> {
  let server: ServerChild | undefined;
  try {
    server = await start();
    for (
      let warmed = 0, spent = 0;
      spent < timing.warmupMaxSeconds && (spent < timing.warmupSeconds || warmed < timing.warmupRequests);
      spent++
    ) {
      warmed += (await load(server.url, run.mode, 1)).total2xx;
    }
    const cpuBefore = processCpuSeconds(server.process.pid);
    const result = await load(server.url, run.mode, timing.seconds);
    const cpuAfter = processCpuSeconds(server.process.pid);
    const cpu = cpuBefore === undefined || cpuAfter === undefined || result.total2xx === 0 ? Number.NaN : cpuAfter - cpuBefore;
    const measured = { ...run, ...result, cpuMicrosPerRequest: (cpu * 1e6) / result.total2xx, loadAverage1m: loadavg()[0] ?? 0 };
    process.stdout.write(
      `  ${run.mode} r${run.round} ${run.target}: ${num(result.requestsPerSecond)} req/s, p99 ${result.latencyP99Ms} ms, server CPU ${num(measured.cpuMicrosPerRequest)} µs/req, autocannon ${num(result.generatorBusy * 100)}% of its core${result.valid ? '' : ' INVALID'}\n`,
    );
    return measured;
  } catch (error) {
    return { ...run, ...FAILED, cpuMicrosPerRequest: Number.NaN, loadAverage1m: loadavg()[0] ?? 0, error: errorText(error) };
  } finally {
    await server?.stop();
  }
}

/** Per round, the req/s ratio `num / den` of two targets' valid runs in `runs` (rounds where both are valid). */
export function roundRatios(runs: ServerRun[], num: string, den: string): number[] {
  const valid = (target: string, round: number) => runs.find((r) => r.target === target && r.round === round && r.valid);
  const rounds = [...new Set(runs.map((r) => r.round))];
  return rounds.flatMap((round) => {
    const [a, b] = [valid(num, round), valid(den, round)];
    return a && b ? [a.requestsPerSecond / b.requestsPerSecond] : [];
  });
}

/** The median of `pick` over the valid runs of `target` in `runs`. */
export const medianOf = (runs: ServerRun[], target: string, pick: (run: ServerRun) => number): number =>
  median(runs.filter((r) => r.target === target && r.valid).map(pick));
