import { MethodNotFoundError, matchRestRoute, restRequestToParams } from '@a2aplane/a2a-types';
import { type A2AServer, toA2AError } from '../core/server.js';
import { withAuthChallenge } from './auth-challenge.js';
import { mediaTypeOf, readJsonBody } from './body.js';
import type { HttpExchange, Reply } from './exchange.js';
import { withActivatedExtensions } from './extension-echo.js';
import { isJsonMediaType, restResponseHeaders, unsupportedMediaType } from './media-types.js';
import { restErrorReply } from './replies.js';

/** Serves one request of the HTTP+JSON binding; `subPath` is the path below the REST mount. */
export async function serveRest(server: A2AServer, exchange: HttpExchange, subPath: string, maxBody: number): Promise<Reply> {
  const verb = exchange.method;
  const match = matchRestRoute(verb, subPath);
  if (!match) {
    exchange.skipBody(maxBody);
    return restErrorReply(new MethodNotFoundError({ message: 'No A2A operation at this path' }));
  }
  if (match.method === undefined) {
    exchange.skipBody(maxBody);
    return restErrorReply(new MethodNotFoundError({ message: `Use ${match.allowedVerbs.join(' or ')} for this path` }), 405);
  }
  let body: unknown;
  let raw: Uint8Array | undefined;
  if (verb.toUpperCase() === 'POST') {
    const type = mediaTypeOf(exchange);
    if (exchange.hasBody() && !isJsonMediaType(type)) {
      exchange.skipBody(maxBody);
      return restErrorReply(...unsupportedMediaType('HTTP+JSON'));
    }
    const read = await readJsonBody(exchange, maxBody);
    if (!read.ok) return restErrorReply(read.error, read.status);
    body = read.value;
    raw = read.raw;
  } else {
    exchange.skipBody(maxBody);
  }
  const params = restRequestToParams(match.method, {
    pathParams: match.pathParams,
    query: exchange.query.params,
    ...(match.tenant === undefined ? {} : { tenant: match.tenant }),
    ...(body === undefined ? {} : { body }),
  });
  const request = exchange.coreRequest(match.method, params, raw);
  const result = await server.handle(request);
  if (result.kind === 'error') return withAuthChallenge(restErrorReply(result.error), result.error, server.card);
  if (result.kind === 'result')
    return { kind: 'json', status: 200, body: result.result, headers: withActivatedExtensions(request, restResponseHeaders()) };
  return {
    kind: 'sse',
    headers: withActivatedExtensions(request, undefined),
    events: result.events,
    frame: (event) => event.data,
    errorFrame: (error) => toA2AError(error).toRestError(),
  };
}
