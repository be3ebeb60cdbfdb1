import { A2AError } from './errors/a2a-error.js';
import { InvalidParamsError, InvalidRequestError, JSONParseError, MethodNotFoundError } from './errors/classes.js';
import { fromJsonRpcError } from './errors/convert.js';
import { isA2AMethod, OPERATION_MESSAGES } from './methods.js';
import { type A2AMethod, type A2ARequestMap, type A2AResultMap, OPERATIONS } from './operations.js';
import { parseProtoJson } from './parse.js';
import { type ParseResult, parseWith } from './validation.js';
import { isPlainObject, JSON_RPC_VERSION, type JsonRpcErrorObject, type JsonRpcId, readJsonRpcResult } from './json-rpc-core.js';

export {
  createJsonRpcRequest,
  JSON_RPC_VERSION,
  type JsonRpcErrorObject,
  type JsonRpcId,
  type JsonRpcRequest,
  type JsonRpcResultOutcome,
  readJsonRpcResult,
} from './json-rpc-core.js';

/** A request without `id`: the server must not answer it. */
export interface JsonRpcNotification<M extends string = string, P = unknown> {
  jsonrpc: typeof JSON_RPC_VERSION;
  method: M;
  params?: P;
}
export interface JsonRpcSuccessResponse<R = unknown> {
  jsonrpc: typeof JSON_RPC_VERSION;
  id: JsonRpcId;
  result: R;
}
export interface JsonRpcErrorResponse {
  jsonrpc: typeof JSON_RPC_VERSION;
  id: JsonRpcId;
  error: JsonRpcErrorObject;
}
export type JsonRpcResponse<R = unknown> = JsonRpcSuccessResponse<R> | JsonRpcErrorResponse;

export const createJsonRpcSuccess = <R>(id: JsonRpcId, result: R): JsonRpcSuccessResponse<R> => ({
  jsonrpc: JSON_RPC_VERSION,
  id,
  result,
});

export const createJsonRpcError = (id: JsonRpcId, error: A2AError | JsonRpcErrorObject): JsonRpcErrorResponse => ({
  jsonrpc: JSON_RPC_VERSION,
  id,
  error: error instanceof A2AError || A2AError.isInstance(error) ? (error as A2AError).toJsonRpcError() : error,
});

export interface EnvelopeOptions {
  /** Longest string id accepted; longer ids are an invalid request. Default 256. */
  maxIdLength?: number;
}

/** The outcome of reading an untrusted JSON-RPC body. Never throws. */
export type JsonRpcEnvelope =
  | { kind: 'request'; id: string | number | null; method: string; params: unknown }
  | { kind: 'notification'; method: string; params: unknown }
  | { kind: 'error'; id: JsonRpcId; error: A2AError };

function readId(value: Record<string, unknown>, maxIdLength: number): { ok: true; id: JsonRpcId } | { ok: false } {
  const id = value.id;
  if (id === null) return { ok: true, id };
  if (typeof id === 'string') return id.length <= maxIdLength ? { ok: true, id } : { ok: false };
  if (typeof id === 'number') return Number.isSafeInteger(id) ? { ok: true, id } : { ok: false };
  return { ok: false };
}

/**
 * Reads a JSON-RPC 2.0 envelope from a raw body (string) or an already parsed value.
 * Tells a parse error (-32700) from an invalid request (-32600); the method is not checked here.
 */
export function readJsonRpcEnvelope(body: unknown, options: EnvelopeOptions = {}): JsonRpcEnvelope {
  let value = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch {
      return { kind: 'error', id: null, error: new JSONParseError() };
    }
  }
  if (Array.isArray(value)) {
    return { kind: 'error', id: null, error: new InvalidRequestError({ message: 'Batch requests are not supported' }) };
  }
  if (!isPlainObject(value)) {
    return { kind: 'error', id: null, error: new InvalidRequestError({ message: 'Request must be a JSON object' }) };
  }
  const hasId = Object.hasOwn(value, 'id');
  const id = hasId ? readId(value, options.maxIdLength ?? 256) : undefined;
  if (id && !id.ok) {
    return { kind: 'error', id: null, error: new InvalidRequestError({ message: 'Request id must be a string, an integer or null' }) };
  }
  const responseId = id?.ok ? id.id : null;
  if (value.jsonrpc !== JSON_RPC_VERSION) {
    return { kind: 'error', id: responseId, error: new InvalidRequestError({ message: 'jsonrpc must be "2.0"' }) };
  }
  if (typeof value.method !== 'string' || value.method === '') {
    return { kind: 'error', id: responseId, error: new InvalidRequestError({ message: 'method must be a non-empty string' }) };
  }
  const params = value.params;
  // JSON-RPC 2.0 §4.2: params, when present, is a structured value; `null` is not one.
  if (params !== undefined && (typeof params !== 'object' || params === null)) {
    return { kind: 'error', id: responseId, error: new InvalidRequestError({ message: 'params must be an object or an array' }) };
  }
  if (!hasId) return { kind: 'notification', method: value.method, params };
  return { kind: 'request', id: responseId, method: value.method, params };
}

/**
 * Validates the params of an A2A operation; missing params count as `{}`. Fields may use their
 * JSON or their proto names (ProtoJSON); the result always has the JSON (camelCase) names.
 */
export function parseOperationParams<M extends A2AMethod>(method: M, params: unknown): ParseResult<A2ARequestMap[M]> {
  return parseProtoJson(OPERATION_MESSAGES[method].params, OPERATIONS[method].params, params ?? {});
}

/** Validates one result (one stream item) of an A2A operation, accepting proto field names as well. */
export function parseOperationResult<M extends A2AMethod>(method: M, result: unknown): ParseResult<A2AResultMap[M]> {
  const type = OPERATION_MESSAGES[method].result;
  const schema = OPERATIONS[method].result;
  return type === undefined ? parseWith(schema, result) : parseProtoJson(type, schema, result);
}

export type ClassifiedRequest =
  | { [M in A2AMethod]: { kind: 'request'; id: JsonRpcId; method: M; params: A2ARequestMap[M] } }[A2AMethod]
  | { kind: 'notification'; method: string; params: unknown }
  | { kind: 'error'; id: JsonRpcId; error: A2AError };

/**
 * Classifies an untrusted JSON-RPC body as a valid A2A v1.0 call, or the right error:
 * parse error (-32700), invalid request (-32600), unknown method (-32601) or invalid params (-32602,
 * with every field violation in a `google.rpc.BadRequest` detail).
 */
export function classifyJsonRpcRequest(body: unknown, options: EnvelopeOptions = {}): ClassifiedRequest {
  const envelope = readJsonRpcEnvelope(body, options);
  if (envelope.kind !== 'request') return envelope;
  const { id, method, params } = envelope;
  if (!isA2AMethod(method)) {
    return { kind: 'error', id, error: new MethodNotFoundError({ metadata: { method: method.slice(0, 128) } }) };
  }
  if (params !== undefined && !isPlainObject(params)) {
    return { kind: 'error', id, error: new InvalidParamsError({ message: 'params must be an object' }) };
  }
  const parsed = parseOperationParams(method, params);
  if (!parsed.success) {
    return { kind: 'error', id, error: new InvalidParamsError({ details: [{ ...parsed.error.toBadRequest() }] }) };
  }
  return { kind: 'request', id, method, params: parsed.data } as ClassifiedRequest;
}

/** The outcome of reading a JSON-RPC response on the client side. Never throws. */
export type JsonRpcResponseOutcome =
  | { kind: 'success'; id: JsonRpcId; result: unknown }
  | { kind: 'error'; id: JsonRpcId; error: A2AError }
  | { kind: 'invalid'; reason: string };

/**
 * Reads an untrusted JSON-RPC response and checks that it answers `expectedId`. An error response
 * becomes its typed error class; anything that is not a response is `invalid` (a transport problem).
 */
export function readJsonRpcResponse(body: unknown, expectedId?: JsonRpcId): JsonRpcResponseOutcome {
  const outcome = readJsonRpcResult(body, expectedId);
  return outcome.kind === 'error' ? { kind: 'error', id: outcome.id, error: fromJsonRpcError(outcome.error) } : outcome;
}
