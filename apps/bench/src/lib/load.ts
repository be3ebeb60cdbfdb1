import autocannon from 'autocannon';
import { A2A_VERSION_HEADER } from '@a2aplane/a2a-types';
import { sendMessageBody } from './fixtures.js';
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

export interface LoadResult {
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  total2xx: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  mismatches: number;
  valid: boolean;
}

/** Requests sent by this process: message ids stay fresh across runs (a warm-up's ids again would be answered as repeats). */
let sentByProcess = 0;

/**
 * One autocannon run: 50 connections by default, the same SendMessage request (but for its
 * messageId) every time. With `signatures`, each request is the next signed one of the pool (its
 * own body and RFC 9421 signature headers, a fresh nonce each).
 */
export async function load(
  url: string,
  mode: ReplyMode,
  seconds: number,
  connections = 50,
  signatures?: { next(): SignedRequest },
): Promise<LoadResult> {
  const headers = { 'content-type': 'application/json', [A2A_VERSION_HEADER]: '1.0' };
  const result = await autocannon({
    url: `${url}/a2a/jsonrpc`,
    connections,
    duration: seconds,
    method: 'POST',
    headers,
    // A fresh messageId per request: a repeated one would be answered from the stored task
    // (autocannon's idReplacement miscounts Content-Length for its variable-length ids).
    requests: [
      {
        setupRequest: (request: Record<string, unknown>) => {
          if (signatures) {
            const signed = signatures.next();
            request.body = signed.body;
            request.headers = { ...headers, ...signed.headers };
          } else {
            sentByProcess += 1;
            request.body = sendMessageBody('hello', `bench-${sentByProcess}`);
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
}
