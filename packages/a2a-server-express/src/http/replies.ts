import { type A2AError, createJsonRpcError, type JsonRpcId } from '@a2aplane/a2a-types';
import type { Reply } from './exchange.js';
import { restResponseHeaders } from './media-types.js';

function errorHeaders(error: A2AError): Record<string, string> | undefined {
  return error.retryAfterSeconds === undefined ? undefined : { 'retry-after': String(Math.max(0, Math.ceil(error.retryAfterSeconds))) };
}

export function restErrorReply(error: A2AError, status = error.httpStatus): Reply {
  const body = error.toRestError();
  // §11.6: `code` is the HTTP status actually sent (405 and 413 refine the table's 4xx).
  body.error.code = status;
  return { kind: 'json', status, body, headers: restResponseHeaders(errorHeaders(error)) };
}

export function jsonRpcErrorReply(id: JsonRpcId, error: A2AError, status = 200): Reply {
  return { kind: 'json', status, body: createJsonRpcError(id, error), headers: errorHeaders(error) };
}

/** The 404 of a bare binding (node:http, fetch) for a path no mount owns. */
export const NOT_FOUND_BODY = { error: { code: 404, status: 'NOT_FOUND', message: 'Not found', details: [] } };
