import type { JsonRpcId } from '@a2aplane/a2a-types';
import { type A2AServer, toA2AError } from '../core/server.js';
import { createCors } from './cors.js';
import { createDocuments, documentReply } from './documents.js';
import type { HttpExchange, Reply } from './exchange.js';
import { serveJsonRpc } from './json-rpc.js';
import { DEFAULT_MAX_BODY_BYTES, type HttpHandlerOptions, type ResolvedPaths, resolvePaths } from './options.js';
import { jsonRpcErrorReply, restErrorReply } from './replies.js';
import { type Route, routeOf } from './routing.js';
import { serveRest } from './rest.js';

/** The binding-neutral half of every HTTP binding: which requests are ours, and what each is answered. */
interface HttpDispatch {
  readonly paths: ResolvedPaths;
  readonly maxBodyBytes: number;
  /** The route of a request path, or `undefined` when the path is not ours (fall through). */
  route(method: string, path: string): Route | undefined;
  /** The reply to a request on one of our routes; never rejects (an unexpected failure is a generic internal error). */
  serve(exchange: HttpExchange, route: Route): Promise<Reply>;
}

export function createHttpDispatch(server: A2AServer, options: HttpHandlerOptions): HttpDispatch {
  const paths = resolvePaths(options);
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxAge = options.cardMaxAgeSeconds ?? 300;
  const documents = createDocuments(server, options);
  const cors = createCors(options.cors);

  // Not async: the JSON-RPC and REST answers are passed through, without a promise hop of their own.
  function answer(exchange: HttpExchange, route: Route, known: { id: JsonRpcId }): Promise<Reply> {
    switch (route.kind) {
      case 'json-rpc':
        return serveJsonRpc(server, exchange, maxBody, known);
      case 'rest':
        return serveRest(server, exchange, route.subPath, maxBody);
      case 'card':
      case 'jwks':
        exchange.skipBody(maxBody);
        return (route.kind === 'card' ? documents.card(route.legacy) : documents.jwks()).then((document) =>
          documentReply(exchange, document, maxAge),
        );
    }
  }

  return {
    paths,
    maxBodyBytes: maxBody,
    route: (method, path) => routeOf(paths, method, path),
    async serve(exchange, route) {
      const isDocument = route.kind === 'card' || route.kind === 'jwks';
      if (cors !== undefined && !isDocument) {
        const preflight = cors.preflight(exchange);
        if (preflight !== undefined) return preflight;
      }
      // The JSON-RPC id, once read: even an unexpected failure is answered with it.
      const known: { id: JsonRpcId } = { id: null };
      let reply: Reply;
      try {
        reply = await answer(exchange, route, known);
      } catch {
        // Never leak internals: whatever escaped becomes a generic internal error.
        const error = toA2AError(undefined);
        reply = route.kind === 'json-rpc' ? jsonRpcErrorReply(known.id, error) : restErrorReply(error);
      }
      return cors === undefined || isDocument ? reply : cors.decorate(exchange, reply);
    },
  };
}
