import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  A2A_EXTENSIONS_HEADER,
  A2A_VERSION_HEADER,
  type A2AError,
  type A2AMethod,
  createJsonRpcError,
  createJsonRpcSuccess,
  DEFAULT_JSON_RPC_PATH,
  DEFAULT_REST_PATH,
  InvalidParamsError,
  InvalidRequestError,
  type JsonRpcId,
  JSONParseError,
  MEDIA_TYPE_JSON,
  MethodNotFoundError,
  matchRestRoute,
  readJsonRpcEnvelope,
  restRequestToParams,
  LEGACY_WELL_KNOWN_AGENT_CARD_PATH,
  WELL_KNOWN_AGENT_CARD_PATH,
} from '@a2aplane/a2a-types';
import { agentCardToV03, methodFromV03, V03_OPERATIONS, type V03OperationTranslator } from '@a2aplane/a2a-types/v0_3';
import { type CardSigner, etagOf, type PreparedCard, prepareAgentCard } from '../card/agent-card.js';
import { type CallerGoneHook, ON_CALLER_GONE } from '../core/caller-gone.js';
import { type A2AServer, type CoreRequest, type CoreResponse, toA2AError } from '../core/server.js';
import type { AuthenticationRequest } from '../core/types.js';
import { writeSse } from '../sse/sse-writer.js';
import { httpDate, isNotModified } from './conditional-get.js';
import { echoActivatedExtensions } from './extension-echo.js';
import { isJsonMediaType, restResponseHeaders, unsupportedMediaType } from './media-types.js';

export interface NodeHttpHandlerOptions {
  jsonRpcPath?: string;
  /**
   * Base path of the HTTP+JSON binding (default `/a2a/rest`). Every path under it is answered
   * (unknown ones with an A2A 404); at the root (`'/'`) only the paths of A2A routes are.
   */
  restPath?: string;
  cardPath?: string;
  /** Where v0.3 clients look for the card (`/.well-known/agent.json`); served in v0.3 shape. `false` disables. */
  legacyCardPath?: string | false;
  /** Largest request body accepted; larger ones get 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /** SSE heartbeat interval in ms; 0 disables. Default 15 000. */
  heartbeatMs?: number;
  /** Signs the public card once, when the handler is created; structurally `signAgentCard` of a2a-identity. */
  cardSigner?: CardSigner;
  /** `Cache-Control: max-age` of the card (and of the JWKS). Default 300 seconds. */
  cardMaxAgeSeconds?: number;
  /**
   * A JWKS document to serve at `jwksPath`: the public keys a signed card's `jku` points at
   * (`createJwks` of a2a-identity), so a verifier can fetch them from the agent itself.
   */
  jwks?: { keys: readonly object[] };
  /** Where `jwks` is served. Default `/.well-known/jwks.json`. */
  jwksPath?: string;
  /** Key for rate limiting anonymous callers. Default: the remote address. */
  clientKey?: (req: IncomingMessage) => string | undefined;
}

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Where a handler serves its `jwks` option unless `jwksPath` says otherwise. */
export const DEFAULT_JWKS_PATH = '/.well-known/jwks.json';

/** Bytes served as they are, with their ETag and media type (the card, the legacy card, the JWKS). */
interface ServedDocument {
  body: Buffer;
  etag: string;
  contentType: string;
}

function serializeJwks(jwks: { keys: readonly object[] }): ServedDocument {
  if (typeof jwks !== 'object' || jwks === null || !Array.isArray(jwks.keys)) {
    throw new TypeError(`expected jwks to be a JWKS document ({ keys: [...] }), got ${jwks === null ? 'null' : typeof jwks}`);
  }
  if (jwks.keys.some((key) => typeof key !== 'object' || key === null || 'd' in key)) {
    // A private JWK carries `d`: never publish one.
    throw new TypeError('expected jwks.keys to hold public JWK objects only, got an entry that is not one (or has a private "d")');
  }
  const body = Buffer.from(JSON.stringify({ keys: jwks.keys }), 'utf8');
  return { body, etag: etagOf(body), contentType: 'application/jwk-set+json' };
}

/** Handles one request when its path is ours; resolves `false` to let the framework go on. */
export type A2ANodeRequestHandler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

class BodyTooLargeError extends Error {}

/** Express (and other frameworks) may already have read the body. */
function preParsedBody(req: IncomingMessage): { found: true; value: unknown } | { found: false } {
  const withBody = req as IncomingMessage & { body?: unknown; _body?: boolean };
  if (withBody._body === true || (req.readableEnded && withBody.body !== undefined)) return { found: true, value: withBody.body };
  return { found: false };
}

/**
 * Reads the body up to `limit` bytes. Past it, reading stops (the request is paused, not drained):
 * the 413 goes out with `Connection: close`, after which node:http closes the socket, so an
 * endless upload costs nothing more.
 */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      reject(new BodyTooLargeError());
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
        reject(new BodyTooLargeError());
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    req.on('error', reject);
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

function mediaType(req: IncomingMessage): string {
  const raw = req.headers['content-type'];
  if (raw === MEDIA_TYPE_JSON) return raw;
  return (raw ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  // A string body goes out in one write together with the head (a Buffer takes a writev of two).
  const text = JSON.stringify(body);
  const head: Record<string, string> = { 'content-type': MEDIA_TYPE_JSON, 'content-length': String(Buffer.byteLength(text, 'utf8')) };
  if (headers !== undefined) Object.assign(head, headers);
  res.writeHead(status, head);
  res.end(text, 'utf8');
}

function errorHeaders(error: A2AError): Record<string, string> | undefined {
  return error.retryAfterSeconds === undefined ? undefined : { 'retry-after': String(Math.max(0, Math.ceil(error.retryAfterSeconds))) };
}

const EMPTY_QUERY = '';

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
    rawBody?: Buffer,
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

/** The query of a request URL, parsed on first use (most JSON-RPC requests have none). */
class LazyQuery {
  private parsed: URLSearchParams | undefined;

  constructor(private readonly search: string) {}

  get params(): URLSearchParams {
    this.parsed ??= new URLSearchParams(this.search);
    return this.parsed;
  }

  get(name: string): string | undefined {
    if (this.search === EMPTY_QUERY) return undefined;
    return this.params.get(name) ?? undefined;
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
    readonly body?: Buffer,
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

function sendRestError(res: ServerResponse, error: A2AError, status = error.httpStatus): void {
  const body = error.toRestError();
  // §11.6: `code` is the HTTP status actually sent (405 and 413 refine the table's 4xx).
  body.error.code = status;
  sendJson(res, status, body, restResponseHeaders(errorHeaders(error)));
}

function sendJsonRpcError(res: ServerResponse, id: JsonRpcId, error: A2AError, status = 200): void {
  sendJson(res, status, createJsonRpcError(id, error), errorHeaders(error));
}

/**
 * Creates the request handler of the three mounts: JSON-RPC at `/a2a/jsonrpc`, REST under
 * `/a2a/rest` (with an optional `/{tenant}` prefix) and the card at `/.well-known/agent-card.json`.
 */
export function createA2ARequestHandler(server: A2AServer, options: NodeHttpHandlerOptions = {}): A2ANodeRequestHandler {
  const jsonRpcPath = options.jsonRpcPath ?? DEFAULT_JSON_RPC_PATH;
  const restPath = (options.restPath ?? DEFAULT_REST_PATH).replace(/\/+$/, '');
  const cardPath = options.cardPath ?? WELL_KNOWN_AGENT_CARD_PATH;
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxAge = options.cardMaxAgeSeconds ?? 300;
  const legacyCardPath = options.legacyCardPath === false ? undefined : (options.legacyCardPath ?? LEGACY_WELL_KNOWN_AGENT_CARD_PATH);
  let prepared: Promise<PreparedCard> | undefined;
  let preparedLegacy: Promise<PreparedCard> | undefined;
  const cardBytes = (legacy: boolean): Promise<PreparedCard> => {
    if (legacy) {
      preparedLegacy ??= Promise.resolve(server.card).then((card) => {
        const body = Buffer.from(JSON.stringify(agentCardToV03(card)), 'utf8');
        return { card, body, etag: etagOf(body, 'v03-') };
      });
      return preparedLegacy;
    }
    prepared ??= prepareAgentCard(server.card, options.cardSigner);
    return prepared;
  };
  // Sign once, at startup; a failure surfaces as a 500 on the card request, not as an unhandled rejection.
  void cardBytes(false).catch(() => undefined);
  const servedSince = httpDate(Date.now());
  const jwksPath = options.jwks === undefined ? undefined : (options.jwksPath ?? DEFAULT_JWKS_PATH);
  const jwksDocument = options.jwks === undefined ? undefined : serializeJwks(options.jwks);

  const clientKeyOf = (req: IncomingMessage): string | undefined => options.clientKey?.(req) ?? req.socket.remoteAddress;

  async function serveCard(req: IncomingMessage, res: ServerResponse, legacy: boolean): Promise<void> {
    const card = await cardBytes(legacy);
    serveDocument(req, res, { body: card.body, etag: card.etag, contentType: MEDIA_TYPE_JSON });
  }

  /** GET or HEAD of a cacheable document, with `If-None-Match` revalidation; other verbs get 405. */
  function serveDocument(req: IncomingMessage, res: ServerResponse, document: ServedDocument): void {
    skipBody(req, res, maxBody);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    const headers = {
      etag: document.etag,
      'last-modified': servedSince,
      'cache-control': `public, max-age=${maxAge}`,
      'access-control-allow-origin': '*',
    };
    if (isNotModified(headerValue(req, 'if-none-match'), headerValue(req, 'if-modified-since'), document.etag, servedSince)) {
      res.writeHead(304, headers).end();
      return;
    }
    res.writeHead(200, { ...headers, 'content-type': document.contentType, 'content-length': String(document.body.length) });
    res.end(req.method === 'HEAD' ? undefined : document.body);
  }

  /** The parsed body and the bytes it was parsed from (`raw` is absent when a framework parsed it first). */
  async function readJson(
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<{ ok: true; value: unknown; raw?: Buffer } | { ok: false; error: A2AError; status: number }> {
    const pre = preParsedBody(req);
    if (pre.found) return { ok: true, value: pre.value };
    let body: Buffer;
    try {
      body = await readBody(req, maxBody);
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        // The rest of the body is never read: node:http closes the connection after this response.
        res.setHeader('connection', 'close');
        return { ok: false, status: 413, error: new InvalidRequestError({ message: `Request body exceeds ${maxBody} bytes` }) };
      }
      return { ok: false, status: 400, error: new InvalidRequestError({ message: 'Request body could not be read' }) };
    }
    if (body.length === 0) return { ok: true, value: undefined, raw: body };
    try {
      return { ok: true, value: JSON.parse(body.toString('utf8')), raw: body };
    } catch {
      return { ok: false, status: 400, error: new JSONParseError() };
    }
  }

  async function serveJsonRpc(req: IncomingMessage, res: ServerResponse, query: LazyQuery, known: { id: JsonRpcId }): Promise<void> {
    if (req.method !== 'POST') {
      skipBody(req, res, maxBody);
      sendJsonRpcError(res, null, new InvalidRequestError({ message: 'JSON-RPC requests must use POST' }), 405);
      return;
    }
    if (!isJsonMediaType(mediaType(req))) {
      skipBody(req, res, maxBody);
      sendJsonRpcError(res, null, ...unsupportedMediaType('JSONRPC'));
      return;
    }
    const body = await readJson(req, res);
    if (!body.ok) {
      sendJsonRpcError(res, null, body.error, body.status === 413 ? 413 : 200);
      return;
    }
    const envelope = readJsonRpcEnvelope(body.value === undefined ? '' : body.value);
    if (envelope.kind === 'error') {
      sendJsonRpcError(res, envelope.id, envelope.error);
      return;
    }
    if (envelope.kind === 'request') known.id = envelope.id;
    if (envelope.kind === 'notification') {
      // JSON-RPC 2.0: notifications get no response body.
      res.writeHead(204).end();
      return;
    }
    const v03Method = methodFromV03(envelope.method);
    if (v03Method !== undefined) {
      // v0.3 method names (`message/send`) and shapes, served through the a2a-types translators.
      const version = headerValue(req, VERSION_HEADER) ?? query.get(A2A_VERSION_HEADER);
      if (version !== undefined && version.trim() !== '' && version.trim() !== '0.3') {
        sendJsonRpcError(
          res,
          envelope.id,
          new MethodNotFoundError({
            message: `${envelope.method.slice(0, 64)} is a v0.3 method`,
            metadata: { method: envelope.method.slice(0, 128) },
          }),
        );
        return;
      }
      const translator = V03_OPERATIONS[v03Method] as V03OperationTranslator<A2AMethod>;
      const params = translator.paramsFromV03(envelope.params ?? {});
      if (!params.success) {
        sendJsonRpcError(res, envelope.id, new InvalidParamsError({ details: [{ ...params.error.toBadRequest() }] }));
        return;
      }
      const request = new NodeCoreRequest(v03Method, params.data, req, res, query, clientKeyOf(req), body.raw);
      request.version = '0.3';
      const result = await server.handle(request);
      await respondJsonRpc(res, envelope.id, result, (value) => translator.resultToV03(value as never));
      return;
    }
    const request = new NodeCoreRequest(envelope.method, envelope.params, req, res, query, clientKeyOf(req), body.raw);
    await respondJsonRpc(res, envelope.id, echoActivatedExtensions(res, request, await server.handle(request)));
  }

  async function respondJsonRpc(
    res: ServerResponse,
    id: JsonRpcId,
    result: CoreResponse,
    translate: (value: unknown) => unknown = (value) => value,
  ): Promise<void> {
    if (result.kind === 'error') return sendJsonRpcError(res, id, result.error);
    if (result.kind === 'result') return sendJson(res, 200, createJsonRpcSuccess(id, translate(result.result)));
    await writeSse(res, result.events, {
      ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
      frame: (event) => createJsonRpcSuccess(id, translate(event.data)),
      errorFrame: (error) => createJsonRpcError(id, toA2AError(error)),
    });
  }

  async function serveRest(req: IncomingMessage, res: ServerResponse, subPath: string, query: LazyQuery): Promise<void> {
    const verb = req.method ?? 'GET';
    const match = matchRestRoute(verb, subPath);
    if (!match) {
      skipBody(req, res, maxBody);
      sendRestError(res, new MethodNotFoundError({ message: 'No A2A operation at this path' }));
      return;
    }
    if (match.method === undefined) {
      skipBody(req, res, maxBody);
      sendRestError(res, new MethodNotFoundError({ message: `Use ${match.allowedVerbs.join(' or ')} for this path` }), 405);
      return;
    }
    let body: unknown;
    let raw: Buffer | undefined;
    if (verb.toUpperCase() === 'POST') {
      const type = mediaType(req);
      const hasBody =
        req.headers['content-length'] !== '0' &&
        (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined);
      if (hasBody && !isJsonMediaType(type)) {
        skipBody(req, res, maxBody);
        sendRestError(res, ...unsupportedMediaType('HTTP+JSON'));
        return;
      }
      const read = await readJson(req, res);
      if (!read.ok) {
        sendRestError(res, read.error, read.status);
        return;
      }
      body = read.value;
      raw = read.raw;
    } else {
      skipBody(req, res, maxBody);
    }
    const params = restRequestToParams(match.method, {
      pathParams: match.pathParams,
      query: query.params,
      ...(match.tenant === undefined ? {} : { tenant: match.tenant }),
      ...(body === undefined ? {} : { body }),
    });
    const request = new NodeCoreRequest(match.method, params, req, res, query, clientKeyOf(req), raw);
    const result = echoActivatedExtensions(res, request, await server.handle(request));
    if (result.kind === 'error') return sendRestError(res, result.error);
    if (result.kind === 'result') return sendJson(res, 200, result.result, restResponseHeaders());
    await writeSse(res, result.events, {
      ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
      frame: (event) => event.data,
      errorFrame: (error) => toA2AError(error).toRestError(),
    });
  }

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
    // Mounted at the root (`restPath: '/'`), REST claims only the paths of A2A routes, so the
    // application's other paths fall through (express `next()`, a 404, the caller's own handler).
    const isRest =
      restPath === '' ? matchRestRoute(req.method ?? 'GET', path) !== undefined : path === restPath || path.startsWith(`${restPath}/`);
    const isLegacyCard = legacyCardPath !== undefined && path === legacyCardPath;
    if (jwksDocument !== undefined && path === jwksPath) {
      serveDocument(req, res, jwksDocument);
      return true;
    }
    if (path !== cardPath && path !== jsonRpcPath && !isRest && !isLegacyCard) return false;
    // The JSON-RPC id, once read: even an unexpected failure is answered with it.
    const known: { id: JsonRpcId } = { id: null };
    try {
      if (path === cardPath || isLegacyCard) await serveCard(req, res, isLegacyCard);
      else if (path === jsonRpcPath) await serveJsonRpc(req, res, query, known);
      else await serveRest(req, res, path.slice(restPath.length) || '/', query);
    } catch {
      // Never leak internals: whatever escaped becomes a generic internal error.
      if (!res.headersSent) {
        const error = toA2AError(undefined);
        if (path === jsonRpcPath) sendJsonRpcError(res, known.id, error);
        else sendRestError(res, error);
      } else if (!res.writableEnded) {
        res.end();
      }
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
        sendJson(res, 404, { error: { code: 404, status: 'NOT_FOUND', message: 'Not found', details: [] } });
      })
      // Whatever still escapes (a socket gone mid-write) ends this response, never the process.
      .catch(() => res.destroy());
  };
}
