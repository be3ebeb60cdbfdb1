import { A2A_EXTENSIONS_HEADER, A2A_VERSION_HEADER, MEDIA_TYPE_JSON } from '@a2aplane/a2a-types';
import { type CallerGoneHook, ON_CALLER_GONE } from '../core/caller-gone.js';
import type { A2AServer, CoreRequest } from '../core/server.js';
import type { AuthenticationRequest } from '../core/types.js';
import { utf8Decode } from '../encoding/base64url.js';
import { createHttpDispatch } from '../http/dispatch.js';
import type { BodyRead, HttpExchange, Reply } from '../http/exchange.js';
import type { HttpHandlerOptions } from '../http/options.js';
import { LazyQuery } from '../http/query.js';
import { SSE_HEADERS } from '../sse/sse-format.js';
import { createSseStream } from '../sse/sse-stream.js';

export interface FetchHandlerOptions extends HttpHandlerOptions {
  /**
   * Key for rate limiting anonymous callers. A Web `Request` carries no peer address: pass the
   * runtime's (`info.remoteAddr.hostname` in Deno, `server.requestIP(request)` in Bun, the
   * `CF-Connecting-IP` header behind Cloudflare). Default: none, so anonymous callers share no key.
   */
  clientKey?: (request: Request) => string | undefined;
}

/**
 * Answers a Web `Request` when its path is one of the A2A mounts; resolves `undefined` for any other
 * path so it mounts inside a larger app (answer those yourself, such as with a 404).
 */
export type A2AFetchHandler = (request: Request) => Promise<Response | undefined>;

const TOO_LARGE: BodyRead = { kind: 'too-large' };
const UNREADABLE: BodyRead = { kind: 'unreadable' };
const EMPTY = new Uint8Array(0);

/**
 * Reads a Web body up to `limit` bytes. A declared `Content-Length` over the limit is refused unread;
 * within it, the runtime's own whole-body read (its fast path) is bounded by the HTTP framing. A body
 * of undeclared length (chunked) is counted while it streams in and cancelled at the limit.
 */
async function readBody(request: Request, limit: number): Promise<BodyRead> {
  const length = request.headers.get('content-length');
  if (length !== null) {
    const declared = Number(length);
    if (!(declared <= limit)) return TOO_LARGE;
    let raw: Uint8Array;
    try {
      raw = new Uint8Array(await request.arrayBuffer());
    } catch {
      return UNREADABLE;
    }
    // A host that made the Request itself may declare less than it sends.
    if (raw.byteLength > limit) return TOO_LARGE;
    return { kind: 'bytes', raw, text: raw.byteLength === 0 ? '' : utf8Decode(raw) };
  }
  return readStreamed(request.body, limit);
}

async function readStreamed(body: ReadableStream<Uint8Array> | null, limit: number): Promise<BodyRead> {
  if (body === null) return { kind: 'bytes', raw: EMPTY, text: '' };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        void reader.cancel().catch(() => undefined);
        return TOO_LARGE;
      }
      chunks.push(value);
    }
  } catch {
    return UNREADABLE;
  }
  let raw: Uint8Array;
  if (chunks.length === 1) raw = chunks[0] as Uint8Array;
  else {
    raw = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      raw.set(chunk, offset);
      offset += chunk.byteLength;
    }
  }
  return { kind: 'bytes', raw, text: size === 0 ? '' : utf8Decode(raw) };
}

/** What an authenticator sees of a Web request; the flattened headers are made on first read. */
class FetchAuthRequest implements AuthenticationRequest {
  readonly method: string;
  private flat: Record<string, string | undefined> | undefined;

  constructor(
    private readonly request: Request,
    private readonly url: URL,
    private readonly search: LazyQuery,
    readonly body?: Uint8Array,
  ) {
    this.method = request.method;
  }

  get target(): string {
    return this.url.pathname + this.url.search;
  }

  get headers(): Record<string, string | undefined> {
    if (this.flat === undefined) {
      const flat: Record<string, string | undefined> = {};
      this.request.headers.forEach((value, name) => {
        flat[name] = value;
      });
      this.flat = flat;
    }
    return this.flat;
  }

  get query(): URLSearchParams {
    return this.search.params;
  }
}

/** One Web request as the dispatch sees it; `finished` once its response is complete. */
class FetchExchange implements HttpExchange {
  readonly method: string;
  readonly query: LazyQuery;
  finished = false;

  constructor(
    private readonly request: Request,
    private readonly url: URL,
    private readonly clientKey: string | undefined,
  ) {
    this.method = request.method;
    this.query = new LazyQuery(url.search);
  }

  header(name: string): string | undefined {
    return this.request.headers.get(name) ?? undefined;
  }

  hasBody(): boolean {
    // From the headers: adapters (such as @hono/node-server) make the body stream only when it is read.
    const headers = this.request.headers;
    const length = headers.get('content-length');
    if (length !== null) return length !== '0';
    return headers.has('transfer-encoding') || this.request.body !== null;
  }

  readBody(limit: number): Promise<BodyRead> {
    return readBody(this.request, limit);
  }

  skipBody(): void {
    // Nothing to do: the runtime discards a body nobody read.
  }

  coreRequest(method: string, params: unknown, raw: Uint8Array | undefined): CoreRequest {
    const request = this.request;
    const exchange = this;
    const core: CoreRequest & CallerGoneHook = {
      method,
      params,
      version: this.header('a2a-version') ?? this.query.get(A2A_VERSION_HEADER),
      extensions: this.header('a2a-extensions') ?? this.query.get(A2A_EXTENSIONS_HEADER),
      clientKey: this.clientKey,
      lastEventId: this.header('last-event-id'),
      auth: new FetchAuthRequest(request, this.url, this.query, raw),
      // A getter: some adapters make the signal on first read.
      get signal() {
        return request.signal;
      },
      // The request's signal ends a stream and counts as the caller going away, but only before the
      // response is complete (some runtimes abort it once a response has been sent).
      [ON_CALLER_GONE](listener) {
        const signal = request.signal;
        const onAbort = (): void => {
          if (!exchange.finished) listener();
        };
        if (signal.aborted) {
          onAbort();
          return () => undefined;
        }
        signal.addEventListener('abort', onAbort, { once: true });
        return () => signal.removeEventListener('abort', onAbort);
      },
    };
    return core;
  }
}

function toResponse(reply: Reply, exchange: FetchExchange, signal: AbortSignal, heartbeatMs: number | undefined): Response {
  if (reply.kind === 'json') {
    exchange.finished = true;
    const headers: Record<string, string> = { 'content-type': MEDIA_TYPE_JSON };
    if (reply.headers !== undefined) Object.assign(headers, reply.headers);
    return new Response(JSON.stringify(reply.body), { status: reply.status, headers });
  }
  if (reply.kind === 'bytes') {
    exchange.finished = true;
    return new Response(reply.body === undefined ? null : (reply.body as Uint8Array<ArrayBuffer>), {
      status: reply.status,
      headers: reply.headers,
    });
  }
  const body = createSseStream(reply.events, {
    heartbeatMs,
    frame: reply.frame,
    errorFrame: reply.errorFrame,
    signal,
    onEnd: () => {
      exchange.finished = true;
    },
  });
  return new Response(body, { status: 200, headers: { ...SSE_HEADERS, ...reply.headers } });
}

/**
 * The A2A server on the Web `Request → Response` contract (Deno, Bun, Cloudflare Workers, Hono, Next.js
 * route handlers): the same mounts, limits and errors as the node:http binding.
 */
export function createFetchHandler(server: A2AServer, options: FetchHandlerOptions = {}): A2AFetchHandler {
  const dispatch = createHttpDispatch(server, options);
  const heartbeatMs = options.heartbeatMs;
  const clientKey = options.clientKey;
  return async (request) => {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return undefined;
    }
    const route = dispatch.route(request.method, url.pathname);
    if (route === undefined) return undefined;
    const exchange = new FetchExchange(request, url, clientKey?.(request));
    const reply = await dispatch.serve(exchange, route);
    return toResponse(reply, exchange, request.signal, heartbeatMs);
  };
}
