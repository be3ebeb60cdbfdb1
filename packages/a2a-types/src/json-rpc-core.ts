// The JSON-RPC 2.0 pieces a client sends and reads with, free of zod. `json-rpc.ts` re-exports them.

export const JSON_RPC_VERSION = '2.0';

export type JsonRpcId = string | number | null;

/** The `error` member of a JSON-RPC error response. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcRequest<M extends string = string, P = unknown> {
  jsonrpc: typeof JSON_RPC_VERSION;
  id: JsonRpcId;
  method: M;
  params?: P;
}

export const createJsonRpcRequest = <M extends string, P>(id: JsonRpcId, method: M, params?: P): JsonRpcRequest<M, P> =>
  params === undefined ? { jsonrpc: JSON_RPC_VERSION, id, method } : { jsonrpc: JSON_RPC_VERSION, id, method, params };

/** An object that is not an array. */
export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `readJsonRpcResponse`'s outcome with the error object as sent (`fromJsonRpcError` makes it a class). */
export type JsonRpcResultOutcome =
  | { kind: 'success'; id: JsonRpcId; result: unknown }
  | { kind: 'error'; id: JsonRpcId; error: { code: number; message: unknown; data: unknown } }
  | { kind: 'invalid'; reason: string };

/**
 * `readJsonRpcResponse` without the error conversion: an error response keeps its `{ code, message,
 * data }`.
 */
export function readJsonRpcResult(body: unknown, expectedId?: JsonRpcId): JsonRpcResultOutcome {
  let value = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch {
      return { kind: 'invalid', reason: 'response is not valid JSON' };
    }
  }
  if (!isPlainObject(value) || value.jsonrpc !== JSON_RPC_VERSION) {
    return { kind: 'invalid', reason: 'response is not a JSON-RPC 2.0 object' };
  }
  // Some servers leave `id` out of error responses; read that as null (an error about our call).
  const rawId = value.id === undefined && isPlainObject(value.error) ? null : value.id;
  if (rawId !== null && typeof rawId !== 'string' && typeof rawId !== 'number') {
    return { kind: 'invalid', reason: 'response id is missing or not a string, number or null' };
  }
  const id: JsonRpcId = rawId;
  if (isPlainObject(value.error)) {
    const { code, message, data } = value.error;
    if (typeof code !== 'number') return { kind: 'invalid', reason: 'error.code is not a number' };
    // Errors about unreadable requests carry id null; they still answer our call.
    if (expectedId !== undefined && id !== null && id !== expectedId) {
      return { kind: 'invalid', reason: 'response id does not match the request id' };
    }
    return { kind: 'error', id, error: { code, message, data } };
  }
  if (!Object.hasOwn(value, 'result')) return { kind: 'invalid', reason: 'response has neither result nor error' };
  if (expectedId !== undefined && id !== expectedId) {
    return { kind: 'invalid', reason: 'response id does not match the request id' };
  }
  return { kind: 'success', id, result: value.result };
}
