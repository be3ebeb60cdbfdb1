import type { IncomingMessage, ServerResponse } from 'node:http';
import { A2A_EXTENSIONS_HEADER, A2A_VERSION_HEADER, MEDIA_TYPE_JSON } from '@a2aplane/a2a-types';
import { type CallerGoneHook, ON_CALLER_GONE } from '../core/caller-gone.js';
import type { A2AServer, CoreRequest } from '../core/server.js';
import type { AuthenticationRequest } from '../core/types.js';
import { writeSse } from '../sse/sse-writer.js';
import { createHttpDispatch } from './dispatch.js';
import type { BodyRead, HttpExchange, Reply } from './exchange.js';
import { DEFAULT_MAX_BODY_BYTES, type HttpHandlerOptions } from './options.js';
import { EMPTY_QUERY, LazyQuery } from './query.js';
import { NOT_FOUND_BODY } from './replies.js';

export { DEFAULT_JWKS_PATH } from './options.js';

export interface NodeHttpHandlerOptions extends HttpHandlerOptions {
  /** Key for rate limiting anonymous callers. Default: the remote address. */
  clientKey?: (req: IncomingMessage) => string | undefined;
}

/** Handles one request when its path is ours; resolves `false` to let the framework go on. */
export type A2ANodeRequestHandler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

/** Express (and other frameworks) may already have read the body. */
function preParsedBody(req: IncomingMessage): { found: true; value: unknown } | { found: false } {
  const withBody = req as IncomingMessage & { body?: unknown; _body?: boolean };
  if (withBody._body === true || (req.readableEnded && withBody.body !== undefined)) return { found: true, value: withBody.body };
  return { found: false };
}

const TOO_LARGE: BodyRead = { kind: 'too-large' };
const UNREADABLE: BodyRead = { kind: 'unreadable' };

/**
 * Reads the body up to `limit` bytes. Past it, reading stops (the request is paused, not drained):
 * the 413 goes out with `Connection: close`, after which node:http closes the socket, so an
 * endless upload costs nothing more.
 */
function readBody(req: IncomingMessage, res: ServerResponse, limit: number): Promise<BodyRead> {
  return new Promise((resolve) => {
    const tooLarge = (): void => {
      // The rest of the body is never read: node:http closes the connection after this response.
      if (!res.headersSent) res.setHeader('connection', 'close');
      resolve(TOO_LARGE);
    };
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      tooLarge();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.pause();
        chunks.length = 0;
        tooLarge();
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => {
      const raw = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
      resolve({ kind: 'bytes', raw, text: raw.length === 0 ? '' : raw.toString('utf8') });
    });
    req.on('error', () => resolve(UNREADABLE));
  });
}

/**
 * A refused request's body is not read: a small declared one is drained (the connection stays
 * reusable), anything else (chunked, or larger than the limit) closes the connection after the reply.
 */
function skipBody(req: IncomingMessage, res: ServerResponse, limit: number): void {
  const declared = req.headers['content-length'];
  if (req.readableEnded || (req.headers['transfer-encoding'] === undefined && (declared === undefined || Number(declared) <= limit))) {
    req.resume();
    return;
  }
  res.setHeader('connection', 'close');
}

/** `name` must be lower-case (node:http lower-cases incoming header names). */
function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

const VERSION_HEADER = A2A_VERSION_HEADER.toLowerCase();
const EXTENSIONS_HEADER = A2A_EXTENSIONS_HEADER.toLowerCase();

function flatHeaders(req: IncomingMessage): Record<string, string | undefined> {
  // for...in, not Object.entries: no pair arrays per header (an authenticator reads this per request).
  const out: Record<string, string | undefined> = {};
  const headers = req.headers;
  for (const name in headers) {
    const value = headers[name];
    out[name] = Array.isArray(value) ? value.join(',') : value;
  }
  return out;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  // A string body goes out in one write together with the head (a Buffer takes a writev of two).
  const text = JSON.stringify(body);
  const head: Record<string, string> = { 'content-type': MEDIA_TYPE_JSON, 'content-length': String(Buffer.byteLength(text, 'utf8')) };
  if (headers !== undefined) Object.assign(head, headers);
  res.writeHead(status, head);
  res.end(text, 'utf8');
}

/**
 * The `CoreRequest` of one HTTP request. What most requests never need is made on first use: the
 * flattened headers and query of `auth` (only an authenticator reads them) and the `signal`
 * (the core listens for the response's `close` through `ON_CALLER_GONE` instead).
 */
class NodeCoreRequest implements CoreRequest, CallerGoneHook {
  version: string | undefined;
  readonly extensions: string | undefined;
  readonly clientKey: string | undefined;
  readonly lastEventId: string | undefined;
  readonly auth: AuthenticationRequest;
  private controller: AbortController | undefined;

  constructor(
    readonly method: string,
    readonly params: unknown,
    req: IncomingMessage,
    private readonly res: ServerResponse,
    query: LazyQuery,
    clientKey: string | undefined,
    rawBody?: Uint8Array,
  ) {
    this.version = headerValue(req, VERSION_HEADER) ?? query.get(A2A_VERSION_HEADER);
    this.extensions = headerValue(req, EXTENSIONS_HEADER) ?? query.get(A2A_EXTENSIONS_HEADER);
    this.clientKey = clientKey;
    this.lastEventId = headerValue(req, 'last-event-id');
    this.auth = new NodeAuthRequest(req, query, rawBody);
  }

  /** Aborts when the client goes away before the response is complete. */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      const controller = new AbortController();
      this.controller = controller;
      this[ON_CALLER_GONE](() => controller.abort());
    }
    return this.controller.signal;
  }

  [ON_CALLER_GONE](listener: () => void): () => void {
    const res = this.res;
    const onClose = (): void => {
      if (!res.writableFinished) listener();
    };
    res.once('close', onClose);
    return () => res.off('close', onClose);
  }
}

/**
 * What an authenticator sees of a request: the headers (flattened) and the query are made on first
 * read, since most servers have no authenticator. They are getters: pass the object on, do not
 * spread it.
 */
class NodeAuthRequest implements AuthenticationRequest {
  readonly method: string;
  private flat: Record<string, string | undefined> | undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly search: LazyQuery,
    /** The bytes read for the body (the same Buffer that was parsed, not a copy), for request signatures. */
    readonly body?: Uint8Array,
  ) {
    this.method = req.method ?? 'GET';
  }

  /** The request-target as received (path and query); express's `originalUrl` keeps a mount prefix it strips from `url`. */
  get target(): string {
    return (this.req as IncomingMessage & { originalUrl?: string }).originalUrl ?? this.req.url ?? '/';
  }

  get headers(): Record<string, string | undefined> {
    this.flat ??= flatHeaders(this.req);
    return this.flat;
  }

  get query(): URLSearchParams {
    return this.search.params;
  }
}

/** One node:http request and response, as the dispatch sees them. */
class NodeExchange implements HttpExchange {
  readonly method: string;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    readonly query: LazyQuery,
    private readonly clientKeyOf: (req: IncomingMessage) => string | undefined,
  ) {
    this.method = req.method ?? 'GET';
  }

  header(name: string): string | undefined {
    return headerValue(this.req, name);
  }

  hasBody(): boolean {
    const length = this.req.headers['content-length'];
    return length !== '0' && (length !== undefined || this.req.headers['transfer-encoding'] !== undefined);
  }

  readBody(limit: number): Promise<BodyRead> {
    const pre = preParsedBody(this.req);
    if (pre.found) return Promise.resolve({ kind: 'parsed', value: pre.value });
    return readBody(this.req, this.res, limit);
  }

  skipBody(limit: number): void {
    skipBody(this.req, this.res, limit);
  }

  coreRequest(method: string, params: unknown, raw: Uint8Array | undefined): CoreRequest {
    return new NodeCoreRequest(method, params, this.req, this.res, this.query, this.clientKeyOf(this.req), raw);
  }
}

/** Writes `reply`; a promise only for a stream (a JSON or bytes reply is written at once). */
function writeReply(res: ServerResponse, reply: Reply, heartbeatMs: number | undefined): Promise<void> | undefined {
  if (reply.kind === 'json') {
    sendJson(res, reply.status, reply.body, reply.headers);
    return undefined;
  }
  if (reply.kind === 'bytes') {
    res.writeHead(reply.status, reply.headers);
    res.end(reply.body);
    return undefined;
  }
  return writeSse(res, reply.events, {
    ...(heartbeatMs === undefined ? {} : { heartbeatMs }),
    ...(reply.headers === undefined ? {} : { headers: reply.headers }),
    frame: reply.frame,
    errorFrame: reply.errorFrame,
  });
}

/**
 * Creates the request handler of the three mounts: JSON-RPC at `/a2a/jsonrpc`, REST under
 * `/a2a/rest` (with an optional `/{tenant}` prefix) and the card at `/.well-known/agent-card.json`.
 */
export function createA2ARequestHandler(server: A2AServer, options: NodeHttpHandlerOptions = {}): A2ANodeRequestHandler {
  const dispatch = createHttpDispatch(server, options);
  const jsonRpcPath = dispatch.paths.jsonRpcPath;
  const clientKey = options.clientKey;
  const clientKeyOf = (req: IncomingMessage): string | undefined => clientKey?.(req) ?? req.socket.remoteAddress;

  return async (req, res) => {
    let path: string;
    let query: LazyQuery;
    const raw = req.url ?? '/';
    if (raw === jsonRpcPath) {
      // The common case, without URL parsing: exactly the JSON-RPC path, no query.
      path = raw;
      query = new LazyQuery(EMPTY_QUERY);
    } else {
      let url: URL;
      try {
        url = new URL(raw, 'http://localhost');
      } catch {
        return false;
      }
      path = url.pathname;
      query = new LazyQuery(url.search);
    }
    const route = dispatch.route(req.method ?? 'GET', path);
    if (route === undefined) return false;
    const reply = await dispatch.serve(new NodeExchange(req, res, query, clientKeyOf), route);
    try {
      const writing = writeReply(res, reply, options.heartbeatMs);
      if (writing !== undefined) await writing;
    } catch {
      // A socket gone mid-write: end what can be ended.
      if (!res.headersSent) res.destroy();
      else if (!res.writableEnded) res.end();
    }
    return true;
  };
}

/** A bare `node:http` request listener: serves the A2A mounts and answers 404 elsewhere. */
export function createNodeHttpHandler(
  server: A2AServer,
  options: NodeHttpHandlerOptions = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  const handle = createA2ARequestHandler(server, options);
  return (req, res) => {
    handle(req, res)
      .then((handled) => {
        if (handled || res.headersSent) return;
        skipBody(req, res, options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
        sendJson(res, 404, NOT_FOUND_BODY);
      })
      // Whatever still escapes (a socket gone mid-write) ends this response, never the process.
      .catch(() => res.destroy());
  };
}
