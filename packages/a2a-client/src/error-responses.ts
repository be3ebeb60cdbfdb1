import { type A2AError, fromJsonRpcError, InvalidAgentResponseError } from '@a2aplane/a2a-types';
import { markObservedStatus } from './retry.js';

/** The typed error of a JSON-RPC error object; `status` is the HTTP status it came with, if any. */
export function jsonRpcError(error: { code: number; message?: unknown; data?: unknown }, status?: number): A2AError {
  const converted = fromJsonRpcError(error);
  return status === undefined ? converted : markObservedStatus(converted, status);
}

/** `InvalidAgentResponseError` with `message`, for a result the validator refused. */
export function invalidAgentResponse(message: string): A2AError {
  return new InvalidAgentResponseError({ message });
}
