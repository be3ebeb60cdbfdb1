import {
  A2A_VERSION_HEADER,
  type A2AMethod,
  type AgentCard,
  createJsonRpcError,
  createJsonRpcSuccess,
  InvalidParamsError,
  InvalidRequestError,
  type JsonRpcId,
  MethodNotFoundError,
  readJsonRpcEnvelope,
} from '@a2aplane/a2a-types';
import { methodFromV03, V03_OPERATIONS, type V03OperationTranslator } from '@a2aplane/a2a-types/v0_3';
import { type A2AServer, type CoreResponse, toA2AError } from '../core/server.js';
import { withAuthChallenge } from './auth-challenge.js';
import { mediaTypeOf, readJsonBody } from './body.js';
import type { HttpExchange, Reply } from './exchange.js';
import { withActivatedExtensions } from './extension-echo.js';
import { isJsonMediaType, unsupportedMediaType } from './media-types.js';
import { jsonRpcErrorReply } from './replies.js';

const VERSION_HEADER = A2A_VERSION_HEADER.toLowerCase();
const identity = (value: unknown): unknown => value;

function resultReply(card: AgentCard, id: JsonRpcId, result: CoreResponse, translate: (value: unknown) => unknown = identity): Reply {
  if (result.kind === 'error') return withAuthChallenge(jsonRpcErrorReply(id, result.error), result.error, card);
  if (result.kind === 'result') return { kind: 'json', status: 200, body: createJsonRpcSuccess(id, translate(result.result)) };
  return {
    kind: 'sse',
    events: result.events,
    frame: (event) => createJsonRpcSuccess(id, translate(event.data)),
    errorFrame: (error) => createJsonRpcError(id, toA2AError(error)),
  };
}

/** Serves one JSON-RPC request; `known.id` holds the request id once read, for the answer to an unexpected failure. */
export async function serveJsonRpc(server: A2AServer, exchange: HttpExchange, maxBody: number, known: { id: JsonRpcId }): Promise<Reply> {
  if (exchange.method !== 'POST') {
    exchange.skipBody(maxBody);
    return jsonRpcErrorReply(null, new InvalidRequestError({ message: 'JSON-RPC requests must use POST' }), 405);
  }
  if (!isJsonMediaType(mediaTypeOf(exchange))) {
    exchange.skipBody(maxBody);
    return jsonRpcErrorReply(null, ...unsupportedMediaType('JSONRPC'));
  }
  const body = await readJsonBody(exchange, maxBody);
  if (!body.ok) return jsonRpcErrorReply(null, body.error, body.status === 413 ? 413 : 200);
  const envelope = readJsonRpcEnvelope(body.value === undefined ? '' : body.value);
  if (envelope.kind === 'error') return jsonRpcErrorReply(envelope.id, envelope.error);
  // JSON-RPC 2.0: notifications get no response body.
  if (envelope.kind === 'notification') return { kind: 'bytes', status: 204, headers: {} };
  known.id = envelope.id;
  const v03Method = methodFromV03(envelope.method);
  if (v03Method === undefined) {
    const request = exchange.coreRequest(envelope.method, envelope.params, body.raw);
    const reply = resultReply(server.card, envelope.id, await server.handle(request));
    if (reply.kind !== 'bytes') reply.headers = withActivatedExtensions(request, reply.headers);
    return reply;
  }
  // v0.3 method names (`message/send`) and shapes, served through the a2a-types translators.
  const version = exchange.header(VERSION_HEADER) ?? exchange.query.get(A2A_VERSION_HEADER);
  if (version !== undefined && version.trim() !== '' && version.trim() !== '0.3') {
    return jsonRpcErrorReply(
      envelope.id,
      new MethodNotFoundError({
        message: `${envelope.method.slice(0, 64)} is a v0.3 method`,
        metadata: { method: envelope.method.slice(0, 128) },
      }),
    );
  }
  const translator = V03_OPERATIONS[v03Method] as V03OperationTranslator<A2AMethod>;
  const params = translator.paramsFromV03(envelope.params ?? {});
  if (!params.success) return jsonRpcErrorReply(envelope.id, new InvalidParamsError({ details: [{ ...params.error.toBadRequest() }] }));
  const request = exchange.coreRequest(v03Method, params.data, body.raw);
  request.version = '0.3';
  const result = await server.handle(request);
  return resultReply(server.card, envelope.id, result, (value) => translator.resultToV03(value as never));
}
