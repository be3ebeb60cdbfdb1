import type { Exchange, ExchangeLog } from './exchange-log.js';
import { redactHeaders, redactUrl } from './redact.js';

/** `direct`: the browser calls the agent (needs its CORS); `relay`: through the console's backend; `auto`: direct, then the relay where CORS refuses. */
export type ReachMode = 'auto' | 'direct' | 'relay';

export interface ConsoleFetchOptions {
  log: ExchangeLog;
  mode: () => ReachMode;
  /** Lower-case header names and query parameters holding secrets (the API key's), redacted in the log. */
  secretHeaders?: () => ReadonlySet<string>;
  secretParams?: () => ReadonlySet<string>;
  /** The console backend's fetch (adds the session token). */
  backend: (path: string, init: RequestInit) => Promise<Response>;
}

const LOGGED_BODY_LIMIT = 64 * 1024;

function operationOf(method: string, url: string, body: string | undefined): string {
  if (body) {
    try {
      const parsed = JSON.parse(body) as { method?: unknown };
      if (typeof parsed.method === 'string') return parsed.method;
    } catch {
      // not JSON-RPC: named by its path below
    }
  }
  return `${method} ${new URL(url).pathname}`;
}

/** Reads a copy of the body into the log entry as it arrives; SSE `id:` lines move the resume cursor. */
async function follow(log: ExchangeLog, exchange: Exchange, body: ReadableStream<Uint8Array>, started: number): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const chunk = decoder.decode(value, { stream: true });
      const ids = [...chunk.matchAll(/^id:\s?(.*)$/gm)];
      const last = ids.at(-1)?.[1];
      if (text.length < LOGGED_BODY_LIMIT) text = (text + chunk).slice(0, LOGGED_BODY_LIMIT);
      log.update(exchange, { responseBody: text, ...(last !== undefined ? { lastEventId: last } : {}) });
    }
  } catch (error) {
    log.update(exchange, { error: (error as Error).message || 'stream closed' });
  } finally {
    log.update(exchange, { totalMs: Math.round(performance.now() - started) });
  }
}

/**
 * The `fetch` the console gives its A2A clients: every exchange goes to the raw log (timings,
 * redacted headers, bodies), and each call goes direct or through the relay by `mode`. In `auto`
 * a call the browser refuses (CORS: a network `TypeError`) is sent again through the relay, and
 * that origin stays relayed. The relay carries the agent-bound headers as JSON to exactly that URL.
 */
export function createConsoleFetch(options: ConsoleFetchOptions) {
  const relayed = new Set<string>();

  const viaRelay = (url: string, method: string, headers: Headers, body: string | undefined, signal: AbortSignal | undefined) => {
    const agentHeaders: Record<string, string> = {};
    headers.forEach((value, name) => {
      agentHeaders[name] = value;
    });
    return options.backend('/api/relay/forward', {
      method,
      headers: { 'x-a2a-relay-url': url, 'x-a2a-relay-headers': JSON.stringify(agentHeaders) },
      ...(body !== undefined ? { body } : {}),
      ...(signal ? { signal } : {}),
    });
  };

  return async (input: Request | URL | string, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.text();
    const url = request.url;
    const origin = new URL(url).origin;
    const signal = init?.signal ?? request.signal;
    const mode = options.mode();
    const useRelay = mode === 'relay' || (mode === 'auto' && relayed.has(origin));
    const secretParams = options.secretParams?.() ?? new Set<string>();
    const started = performance.now();
    const exchange = options.log.start({
      method: request.method,
      url: redactUrl(url, secretParams),
      via: useRelay ? 'relay' : 'direct',
      operation: operationOf(request.method, url, body),
      requestHeaders: redactHeaders(request.headers, options.secretHeaders?.()),
      requestBody: body,
      startedAt: Date.now(),
    });
    let response: Response;
    try {
      if (useRelay) response = await viaRelay(url, request.method, request.headers, body, signal);
      else {
        try {
          response = await fetch(url, {
            method: request.method,
            headers: request.headers,
            ...(body !== undefined ? { body } : {}),
            signal,
          });
        } catch (error) {
          if (mode !== 'auto' || signal.aborted || !(error instanceof TypeError)) throw error;
          relayed.add(origin);
          options.log.update(exchange, { via: 'relay' });
          response = await viaRelay(url, request.method, request.headers, body, signal);
        }
      }
    } catch (error) {
      options.log.update(exchange, { error: (error as Error).message || String(error), totalMs: Math.round(performance.now() - started) });
      throw error;
    }
    options.log.update(exchange, {
      status: response.status,
      responseHeaders: redactHeaders(response.headers),
      headersMs: Math.round(performance.now() - started),
    });
    if (!response.body) {
      options.log.update(exchange, { totalMs: Math.round(performance.now() - started) });
      return response;
    }
    const [forCaller, forLog] = response.body.tee();
    void follow(options.log, exchange, forLog, started);
    return new Response(forCaller, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
