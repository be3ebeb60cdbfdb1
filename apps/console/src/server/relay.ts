import type { IncomingMessage, ServerResponse } from 'node:http';
import { checkWebhookUrl } from '@a2aplane/a2a-server-express';
import { ConsoleRequestError, readBody, readJsonBody, sendError, sendJson } from './http-helpers.js';
import { pinnedRequest } from './pinned-request.js';

export interface RelayOptions {
  /** Relay to loopback agents (127.0.0.0/8, ::1, localhost). Default false. */
  allowLoopback?: boolean;
  /** Relay to private-network agents (10/8, 172.16/12, 192.168/16, fc00::/7). Default false. */
  allowPrivate?: boolean;
  /** Relay over plain http to non-loopback hosts. Default false. */
  allowHttp?: boolean;
  /** Largest request body relayed. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Largest response relayed (a stream is cut there). Default 16 MiB. */
  maxResponseBytes?: number;
  /** Until the agent's response headers arrive, in ms. Default 30 000. */
  timeoutMs?: number;
  /** A response that sends nothing for this long is cut, in ms. Default 120 000. */
  idleTimeoutMs?: number;
  /** Relayed requests in flight at once; more are answered 429. Default 16. */
  maxConcurrent?: number;
  /** Origins the user did not enter that may be reached all the same (the registry's agents). */
  isListedOrigin?: (origin: string) => boolean | Promise<boolean>;
  /** Host name resolver for the SSRF check (tests); default node:dns. */
  resolve?: (hostname: string) => Promise<string[]>;
}

/** The headers the UI sends with a relayed call: the target URL, and the agent-bound headers as JSON. */
export const RELAY_URL_HEADER = 'x-a2a-relay-url';
export const RELAY_HEADERS_HEADER = 'x-a2a-relay-headers';

/** Request headers never relayed whatever the UI asks (hop-by-hop, the browser's own, cookies). */
const DROPPED = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'cookie',
  'origin',
  'referer',
  'upgrade',
  'te',
  'trailer',
  'keep-alive',
  'expect',
]);
/** Response headers passed back to the UI. */
const PASSED_BACK = [
  'content-type',
  'a2a-version',
  'a2a-extensions',
  'retry-after',
  'www-authenticate',
  'etag',
  'last-modified',
  'cache-control',
];

function agentHeaders(raw: string | string[] | undefined): Record<string, string> {
  if (raw === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(Array.isArray(raw) ? (raw[0] ?? '') : raw);
  } catch {
    throw new ConsoleRequestError(400, `${RELAY_HEADERS_HEADER} is not JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new ConsoleRequestError(400, `${RELAY_HEADERS_HEADER} must be an object`);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed)) {
    const lower = name.toLowerCase();
    if (typeof value !== 'string' || DROPPED.has(lower) || lower.startsWith('proxy-') || lower.startsWith('sec-')) continue;
    out[lower] = value;
  }
  return out;
}

/**
 * The console's relay: forwards the UI's calls to agents whose CORS does not admit the console.
 * Never an open proxy: only to origins registered in this session (those the user entered and the
 * interfaces of their cards) or listed by `isListedOrigin`; each call passes the server's SSRF
 * check and connects to the vetted addresses; redirects are not followed (credentials meant for
 * one agent go nowhere else); bodies, time and concurrency are bounded; nothing is logged.
 */
export function createRelay(options: RelayOptions = {}) {
  const origins = new Set<string>();
  const maxConcurrent = options.maxConcurrent ?? 16;
  const open = new Set<() => void>();
  let inFlight = 0;
  const check = (url: string) =>
    checkWebhookUrl(url, {
      allowLoopback: options.allowLoopback ?? false,
      allowPrivate: options.allowPrivate ?? false,
      allowHttp: options.allowHttp ?? false,
      ...(options.resolve ? { resolve: options.resolve } : {}),
    });

  const register = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = (await readJsonBody(req)) as { urls?: unknown };
    if (!Array.isArray(body?.urls) || body.urls.length === 0 || body.urls.length > 32 || !body.urls.every((u) => typeof u === 'string')) {
      return sendError(res, 400, 'expected { urls: string[] } (1 to 32 URLs)');
    }
    const accepted: string[] = [];
    const refused: { url: string; reason: string }[] = [];
    for (const url of body.urls as string[]) {
      const verdict = await check(url);
      if (verdict.ok) {
        const origin = new URL(url).origin;
        origins.add(origin);
        accepted.push(origin);
      } else refused.push({ url, reason: verdict.reason });
    }
    sendJson(res, 200, { accepted, refused });
  };

  const forward = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const target = req.headers[RELAY_URL_HEADER];
    if (typeof target !== 'string') return sendError(res, 400, `missing ${RELAY_URL_HEADER}`);
    let origin: string;
    try {
      origin = new URL(target).origin;
    } catch {
      return sendError(res, 400, 'the relay URL is not an absolute URL');
    }
    if (!origins.has(origin) && !(await options.isListedOrigin?.(origin))) {
      return sendError(res, 403, `the relay only reaches agents entered in this session or listed by the registry (not ${origin})`);
    }
    if (inFlight >= maxConcurrent) return sendError(res, 429, 'too many relayed requests in flight');
    const headers = agentHeaders(req.headers[RELAY_HEADERS_HEADER]);
    inFlight++;
    try {
      const verdict = await check(target);
      if (!verdict.ok) return sendError(res, 403, `the relay refuses ${origin}: ${verdict.reason}`);
      const method = req.method ?? 'GET';
      const body = method === 'GET' || method === 'HEAD' ? undefined : await readBody(req, options.maxBodyBytes ?? 1024 * 1024);
      await pinnedRequest(
        {
          url: target,
          method,
          headers,
          body,
          addresses: verdict.addresses,
          timeoutMs: options.timeoutMs ?? 30_000,
          idleTimeoutMs: options.idleTimeoutMs ?? 120_000,
          maxResponseBytes: options.maxResponseBytes ?? 16 * 1024 * 1024,
        },
        res,
        PASSED_BACK,
        open,
      );
    } finally {
      inFlight--;
    }
  };

  return {
    async handle(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
      if (pathname === '/api/relay/targets' && req.method === 'POST') return register(req, res);
      if (pathname === '/api/relay/forward') return forward(req, res);
      return sendError(res, 404, 'no such relay API');
    },
    /** Cuts the relayed calls still open. */
    close(): void {
      for (const cut of open) cut();
    },
  };
}
