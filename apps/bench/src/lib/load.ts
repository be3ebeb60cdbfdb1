import autocannon from 'autocannon';
import { A2A_VERSION_HEADER } from '@a2aplane/a2a-types';
import { sendMessageBody } from './fixtures.js';
import { type HttpLoadResult, httpLoad, serializeRequest, templateRequests } from './http-load.js';
import type { SignedRequest } from './signed.js';

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

/** One measured run: what the generator counted (lib/http-load.ts), plus its own CPU. */
export interface LoadResult extends Omit<HttpLoadResult, 'seconds'> {
  /** CPU (user + system) of the load generator's process per reply, in microseconds. */
  generatorCpuMicrosPerRequest: number;
  /** Share of one core the load generator's process used over the run (1 = a whole core). */
  generatorBusy: number;
}

/** Above this share of its core, the load generator may be what limits the run. */
export const GENERATOR_BOUND = 0.9;

const HEADERS = { 'content-type': 'application/json', [A2A_VERSION_HEADER]: '1.0' };

/**
 * The requests of one server's runs (warm-up and measured: one source, so no id repeats across
 * them), whole on the wire. `prepare(count)` serializes that many ahead, before the clock starts.
 */
export interface RequestSource {
  prepare(count: number): Promise<void>;
  next(): Buffer;
}

/** The same SendMessage request with a fresh messageId each (a repeated one would be answered from the stored task). */
export function plainRequests(url: string): RequestSource {
  const next = templateRequests(`${url}/a2a/jsonrpc`, (marker) => sendMessageBody('hello', `bench-${marker}`), HEADERS);
  return { prepare: async () => undefined, next };
}

/** Each request the next signed one of the pool (its own body and RFC 9421 headers, a fresh nonce each). */
export function signedRequests(url: string, pool: { fill(count: number): Promise<void>; next(): SignedRequest }): RequestSource {
  const endpoint = `${url}/a2a/jsonrpc`;
  const ready: Buffer[] = [];
  const serialize = (signed: SignedRequest) => serializeRequest(endpoint, signed.body, { ...HEADERS, ...signed.headers });
  return {
    async prepare(count) {
      await pool.fill(count);
      for (let i = 0; i < count; i++) ready.push(serialize(pool.next()));
      ready.reverse();
    },
    // Past the prepared ones, sign on the fly rather than replay (a replay is refused).
    next: () => ready.pop() ?? serialize(pool.next()),
  };
}

/** Runs `fn` and adds the bench process's CPU per reply and busy share over it. */
async function withGeneratorCpu(
  fn: () => Promise<Omit<LoadResult, 'generatorCpuMicrosPerRequest' | 'generatorBusy'>>,
): Promise<LoadResult> {
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const result = await fn();
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMicros = cpu.user + cpu.system;
  const replies = result.total2xx + result.non2xx + result.mismatches;
  return {
    ...result,
    generatorCpuMicrosPerRequest: replies === 0 ? Number.NaN : cpuMicros / replies,
    generatorBusy: cpuMicros / 1000 / (performance.now() - wallBefore),
  };
}

/**
 * One run of the lean load generator (lib/http-load.ts): 50 connections by default, one request
 * in flight on each, every reply body checked with `verifier(mode)`.
 */
export async function load(
  url: string,
  mode: ReplyMode,
  seconds: number,
  connections = 50,
  requests: RequestSource = plainRequests(url),
): Promise<LoadResult> {
  return withGeneratorCpu(async () => {
    const { seconds: _measured, ...result } = await httpLoad({
      url,
      next: () => requests.next(),
      verify: verifier(mode),
      seconds,
      connections,
    });
    return result;
  });
}

// Ids of autocannon's requests, unique across its runs (a repeated one would be answered from the stored task).
let autocannonSent = 0;

/**
 * The same run with autocannon: the reference the lean generator was validated against
 * (src/loadgen-check.ts), not used by the suites.
 */
export async function loadWithAutocannon(
  url: string,
  mode: ReplyMode,
  seconds: number,
  connections = 50,
  signatures?: { next(): SignedRequest },
): Promise<LoadResult> {
  return withGeneratorCpu(async () => {
    const result = await autocannon({
      url: `${url}/a2a/jsonrpc`,
      connections,
      duration: seconds,
      method: 'POST',
      headers: HEADERS,
      // autocannon's idReplacement miscounts Content-Length for its variable-length ids.
      requests: [
        {
          setupRequest: (request: Record<string, unknown>) => {
            autocannonSent += 1;
            if (signatures) {
              const signed = signatures.next();
              request.body = signed.body;
              request.headers = { ...HEADERS, ...signed.headers };
            } else {
              request.body = sendMessageBody('hello', `autocannon-${autocannonSent}`);
            }
            return request;
          },
        },
      ],
      timeout: 10,
      verifyBody: verifier(mode),
    });
    const total2xx = result['2xx'];
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
    };
  });
}
