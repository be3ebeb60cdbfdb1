import { randomUUID } from 'node:crypto';
import { createPinnedKeyResolver, verifyAgentCard } from '@a2aplane/a2a-identity';
import type { AgentCard } from '@a2aplane/a2a-types';
import { fetchText } from '../core/fetch-text.js';
import type { BindingVerdict, ExchangeOptions } from './binding.js';
import { grpcTargetOf } from '../core/grpc-target.js';
import { probeGrpc } from './grpc-probe.js';
import type { AgentView, HealthStatus } from '../core/types.js';

/** One probe's findings before backoff bookkeeping. */
interface ProbeFinding {
  status: Exclude<HealthStatus, 'unknown'>;
  reason: string;
  latencyMs?: number;
}

const signed = async (options: ExchangeOptions, request: { method: string; url: string; body?: string }) =>
  options.sign ? await options.sign(request) : {};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A JSON-RPC error whose `data` carries an ErrorInfo reason UNAUTHENTICATED or FORBIDDEN (spec §9.5). */
function refusesCaller(reply: unknown): boolean {
  const data = isObject(reply) && isObject(reply.error) ? reply.error.data : undefined;
  const details = Array.isArray(data) ? data : [data];
  return details.some((detail) => isObject(detail) && (detail.reason === 'UNAUTHENTICATED' || detail.reason === 'FORBIDDEN'));
}

/** JSON-RPC GetTask of an unknown id must answer error -32001 (spec §5.4, TaskNotFoundError). */
async function probeJsonRpc(url: string, options: ExchangeOptions): Promise<BindingVerdict> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: `probe-${randomUUID()}` } });
  const auth = await signed(options, { method: 'POST', url, body });
  const answer = await options.track(() =>
    fetchText(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...auth },
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
  if (code === -32000 && (answer.status === 401 || answer.status === 403 || refusesCaller(reply))) {
    return { binding: 'JSONRPC', ok: false, down: false, auth: true, detail: 'answered UNAUTHENTICATED: authentication required' };
  }
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
  const auth = await signed(options, { method: 'GET', url: target });
  const answer = await options.track(() =>
    fetchText(
      target,
      { headers: { accept: 'application/json', 'a2a-version': '1.0', ...auth }, timeoutMs: options.timeoutMs, maxBytes: 65_536 },
      options,
    ),
  );
  if (!answer.ok) return { binding: 'HTTP+JSON', ok: false, down: answer.kind !== 'too-large', detail: answer.detail };
  const reply = parse(answer.text);
  const details = isObject(reply) && isObject(reply.error) && Array.isArray(reply.error.details) ? reply.error.details : [];
  const reason = details.find((detail) => isObject(detail) && detail.reason === 'TASK_NOT_FOUND');
  if (answer.status === 404 && reason) return { binding: 'HTTP+JSON', ok: true, down: false, detail: '' };
  if ((answer.status === 401 || answer.status === 403) && isObject(reply) && isObject(reply.error)) {
    return { binding: 'HTTP+JSON', ok: false, down: false, auth: true, detail: `answered HTTP ${answer.status}: authentication required` };
  }
  return {
    binding: 'HTTP+JSON',
    ok: false,
    down: false,
    detail: `GET /tasks/{unknown id} answered HTTP ${answer.status}${reason ? '' : ' without ErrorInfo TASK_NOT_FOUND'}, expected 404 TASK_NOT_FOUND`,
  };
}

/**
 * GetTask of an unknown id over each v1.0 interface of the card, once per binding and URL: JSONRPC
 * and HTTP+JSON on the enrolled origin, GRPC on the enrolled origin's host. Others are never requested.
 */
async function probeInterfaces(interfaces: readonly unknown[], origin: string, options: ExchangeOptions): Promise<BindingVerdict[]> {
  const seen = new Set<string>();
  const verdicts: BindingVerdict[] = [];
  for (const entry of interfaces) {
    if (!isObject(entry) || typeof entry.url !== 'string') continue;
    if (entry.protocolVersion !== undefined && !String(entry.protocolVersion).startsWith('1.')) continue;
    const key = `${String(entry.protocolBinding)} ${entry.url}`;
    if (seen.has(key)) continue;
    if (entry.protocolBinding === 'GRPC') {
      const target = grpcTargetOf(entry.url, origin);
      if (!target) continue;
      seen.add(key);
      verdicts.push(await probeGrpc(target, options));
      continue;
    }
    if (!URL.canParse(entry.url) || new URL(entry.url).origin !== origin) continue;
    seen.add(key);
    if (entry.protocolBinding === 'JSONRPC') verdicts.push(await probeJsonRpc(entry.url, options));
    else if (entry.protocolBinding === 'HTTP+JSON') verdicts.push(await probeRest(entry.url, options));
  }
  return verdicts;
}

/**
 * The real A2A exchange of one probe (decision 0072): the card from the enrolled card URL, its
 * signature by the enrolled key, then GetTask of an unknown id over each advertised interface
 * (`probeInterfaces`). Interfaces elsewhere are never requested.
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
  const all = await probeInterfaces(interfaces, agent.origin, options);
  const latencyMs = options.clock() - started;
  const verdicts = all.filter((entry) => !entry.unprobed);
  if (verdicts.length === 0) {
    const unprobed = all.map((entry) => `${entry.binding}: ${entry.detail}`).join('; ');
    return {
      status: 'non-conformant',
      reason: unprobed || 'no v1.0 JSONRPC, HTTP+JSON or GRPC interface on the enrolled origin',
      latencyMs,
    };
  }
  const failed = verdicts.filter((entry) => !entry.ok);
  const summary = failed.map((entry) => `${entry.binding}: ${entry.detail}`).join('; ');
  // An A2A-shaped authentication refusal speaks A2A but proves nothing more: degraded, never up.
  if (failed.length > 0 && failed.every((entry) => entry.auth)) {
    return { status: 'degraded', reason: `${summary} (give the prober credentials: signRequest)`, latencyMs };
  }
  if (failed.length === verdicts.length)
    return { status: failed.every((entry) => entry.down) ? 'down' : 'non-conformant', reason: summary, latencyMs };
  if (failed.length > 0) return { status: 'degraded', reason: summary, latencyMs };
  if (latencyMs > options.degradedLatencyMs)
    return { status: 'degraded', reason: `slow: ${latencyMs} ms > ${options.degradedLatencyMs} ms`, latencyMs };
  return { status: 'up', reason: '', latencyMs };
}
