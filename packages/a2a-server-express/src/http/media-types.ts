import { type A2AError, ContentTypeNotSupportedError, MEDIA_TYPE_A2A_JSON, MEDIA_TYPE_JSON } from '@a2aplane/a2a-types';

/**
 * The response media type per binding: HTTP+JSON responses use `application/a2a+json` (§11.1, a
 * SHOULD since v1.0.1); JSON-RPC responses stay `application/json` (§9.1).
 */
const REST_MEDIA_TYPE = MEDIA_TYPE_A2A_JSON;

/** The headers of an HTTP+JSON JSON response, with `extra` (e.g. `retry-after`) added. */
export function restResponseHeaders(extra?: Record<string, string>): Record<string, string> {
  return extra === undefined ? { 'content-type': REST_MEDIA_TYPE } : { 'content-type': REST_MEDIA_TYPE, ...extra };
}

/** Request bodies of either binding may be `application/json` or `application/a2a+json`. */
export function isJsonMediaType(type: string): boolean {
  return type === MEDIA_TYPE_JSON || type === MEDIA_TYPE_A2A_JSON;
}

/**
 * A request body of another media type, answered as §5.4's table maps ContentTypeNotSupportedError
 * (decision 0106): JSON-RPC code -32005 in an HTTP 200 reply like every JSON-RPC error the server
 * sends after reading a POST; HTTP+JSON `400 Bad Request` with reason `CONTENT_TYPE_NOT_SUPPORTED`.
 */
export function unsupportedMediaType(binding: 'JSONRPC' | 'HTTP+JSON'): [error: A2AError, status: number] {
  const error = new ContentTypeNotSupportedError({
    message: 'Request bodies must be application/json or application/a2a+json',
  });
  return [error, binding === 'JSONRPC' ? 200 : error.httpStatus];
}
