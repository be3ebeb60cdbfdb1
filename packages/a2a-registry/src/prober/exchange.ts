import { randomUUID } from 'node:crypto';
import { createPinnedKeyResolver, verifyAgentCard } from '@a2aplane/a2a-identity';
import type { AgentCard } from '@a2aplane/a2a-types';
import { fetchText, type OutboundOptions } from '../core/fetch-text.js';
import type { AgentView, HealthStatus } from '../core/types.js';

/** One probe's findings before backoff bookkeeping. */
export interface ProbeFinding {
  status: Exclude<HealthStatus, 'unknown'>;
  reason: string;
  latencyMs?: number;
}

export interface ExchangeOptions extends OutboundOptions {
  timeoutMs: number;
  degradedLatencyMs: number;
  maxCardBytes: number;
  /** Wraps every request, so the prober can count (and bound) what is in flight. */
  track: <T>(request: () => Promise<T>) => Promise<T>;
  clock: () => number;
}

type BindingVerdict = { binding: string; ok: boolean; down: boolean; detail: string };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** JSON-RPC GetTask of an unknown id must answer error -32001 (spec §5.4, TaskNotFoundError). */
async function probeJsonRpc(url: string, options: ExchangeOptions): Promise<BindingVerdict> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: `probe-${randomUUID()}` } });
  const answer = await options.track(() =>
    fetchText(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
        body,
        timeoutMs: options.timeoutMs,
        maxBytes: 65_536,
      },
      options,
    ),
  );
  if (!answer.ok) return { binding: 'JSONRPC', ok: false, down: answer.kind !== 'too-large', detail: answer.detail };
  const reply = parse(answer.text);
  const code = isObject(reply) && isObject(reply.error) ? reply.error.code : undefined;
  if (code === -32001) return { binding: 'JSONRPC', ok: true, down: false, detail: '' };
  return {
    binding: 'JSONRPC',
    ok: false,
    down: false,
    detail: `GetTask of an unknown id answered HTTP ${answer.status} ${code === undefined ? 'without a JSON-RPC error' : `with error ${String(code)}`}, expected -32001 TaskNotFound`,
  };
}

/** HTTP+JSON `GET /tasks/{id}` of an unknown id must answer 404 with ErrorInfo reason TASK_NOT_FOUND (spec §11.6). */
async function probeRest(url: string, options: ExchangeOptions): Promise<BindingVerdict> {
  const target = `${url.replace(/\/+$/, '')}/tasks/probe-${randomUUID()}`;
  const answer = await options.track(() =>
    fetchText(
      target,
      { headers: { accept: 'application/json', 'a2a-version': '1.0' }, timeoutMs: options.timeoutMs, maxBytes: 65_536 },
      options,
    ),
  );
  if (!answer.ok) return { binding: 'HTTP+JSON', ok: false, down: answer.kind !== 'too-large', detail: answer.detail };
  const reply = parse(answer.text);
  const details = isObject(reply) && isObject(reply.error) && Array.isArray(reply.error.details) ? reply.error.details : [];
  const reason = details.find((detail) => isObject(detail) && detail.reason === 'TASK_NOT_FOUND');
  if (answer.status === 404 && reason) return { binding: 'HTTP+JSON', ok: true, down: false, detail: '' };
  return {
    binding: 'HTTP+JSON',
    ok: false,
    down: false,
    detail: `GET /tasks/{unknown id} answered HTTP ${answer.status}${reason ? '' : ' without ErrorInfo TASK_NOT_FOUND'}, expected 404 TASK_NOT_FOUND`,
  };
}

/**
 * The real A2A exchange of one probe (decision 0072): the card from the enrolled card URL, its
 * signature by the enrolled key, then GetTask of an unknown id over each advertised JSONRPC and
 * HTTP+JSON interface on the enrolled origin. Interfaces elsewhere are never requested.
 */
export async function probeExchange(agent: AgentView, options: ExchangeOptions): Promise<ProbeFinding> {
  const started = options.clock();
  const served = await options.track(() =>
    fetchText(
      agent.cardUrl,
      { headers: { accept: 'application/json' }, timeoutMs: options.timeoutMs, maxBytes: options.maxCardBytes },
      options,
    ),
  );
  if (!served.ok) return { status: 'down', reason: `card fetch failed: ${served.detail}` };
  if (served.status !== 200) return { status: 'down', reason: `card fetch answered HTTP ${served.status}` };
  const verdict = await verifyAgentCard(served.text, createPinnedKeyResolver(agent.keys));
  if (verdict.status !== 'valid') return { status: 'non-conformant', reason: `card signature by the enrolled key: ${verdict.status}` };
  const card = parse(served.text) as AgentCard;
  const interfaces = Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces : [];
  const onOrigin = interfaces.filter(
    (entry) => isObject(entry) && typeof entry.url === 'string' && URL.canParse(entry.url) && new URL(entry.url).origin === agent.origin,
  );
  const seen = new Set<string>();
  const verdicts: BindingVerdict[] = [];
  for (const entry of onOrigin) {
    const key = `${entry.protocolBinding} ${entry.url}`;
    if (seen.has(key) || (entry.protocolVersion !== undefined && !String(entry.protocolVersion).startsWith('1.'))) continue;
    seen.add(key);
    if (entry.protocolBinding === 'JSONRPC') verdicts.push(await probeJsonRpc(entry.url, options));
    else if (entry.protocolBinding === 'HTTP+JSON') verdicts.push(await probeRest(entry.url, options));
  }
  const latencyMs = options.clock() - started;
  if (verdicts.length === 0)
    return { status: 'non-conformant', reason: 'no v1.0 JSONRPC or HTTP+JSON interface on the enrolled origin', latencyMs };
  const failed = verdicts.filter((entry) => !entry.ok);
  const summary = failed.map((entry) => `${entry.binding}: ${entry.detail}`).join('; ');
  if (failed.length === verdicts.length)
    return { status: failed.every((entry) => entry.down) ? 'down' : 'non-conformant', reason: summary, latencyMs };
  if (failed.length > 0) return { status: 'degraded', reason: summary, latencyMs };
  if (latencyMs > options.degradedLatencyMs)
    return { status: 'degraded', reason: `slow: ${latencyMs} ms > ${options.degradedLatencyMs} ms`, latencyMs };
  return { status: 'up', reason: '', latencyMs };
}
