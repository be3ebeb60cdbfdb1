import { A2A_VERSION_HEADER } from '@a2aplane/a2a-types';
import autocannon from 'autocannon';
import { sendMessageBody } from './fixtures.js';

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
  /** Socket errors and timeouts, non-2xx replies and bodies `verifier(mode)` refused. */
  failed: number;
  /** No failed reply, and at least one 2xx. */
  valid: boolean;
  /** CPU (user + system) of the bench process per reply, in microseconds. */
  generatorCpuMicrosPerRequest: number;
  /** Share of one core the bench process used over the run (1 = a whole core). */
  generatorBusy: number;
}

/** Mean wall time (ms) and this process's CPU time (µs, user + system) per call over `calls` sequential calls. */
export async function perCall(calls: number, call: () => Promise<unknown>): Promise<{ ms: number; cpuUs: number }> {
  const [cpu0, t0] = [process.cpuUsage(), performance.now()];
  for (let i = 0; i < calls; i++) await call();
  const [ms, cpu] = [(performance.now() - t0) / calls, process.cpuUsage(cpu0)];
  return { ms, cpuUs: (cpu.user + cpu.system) / calls };
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
  const failed = result.errors + result.non2xx + result.mismatches;
  return {
    requestsPerSecond: total2xx / result.duration,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    total2xx,
    failed,
    valid: failed === 0 && total2xx > 0,
    generatorCpuMicrosPerRequest: replies === 0 ? Number.NaN : cpuMicros / replies,
    generatorBusy: cpuMicros / 1000 / (performance.now() - wallBefore),
  };
}
