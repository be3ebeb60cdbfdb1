import type { A2AError } from '@a2aplane/a2a-types';
import type { ErrorConverters } from '@a2aplane/a2a-types/error-convert';
import { chunkLoader } from './chunk-loader.js';
import { markObservedStatus } from './retry.js';

/**
 * The a2a-types error classes and the converters of error responses into them, loaded when the
 * first error response or invalid result arrives: calls that succeed never load them (decisions
 * 0050, 0052). A failed load is a transport failure (retryable for an error response); the next
 * one loads again.
 */
export const loadErrorConverters: () => Promise<ErrorConverters> = chunkLoader(
  () => import('./error-conversion.js'),
  'code to read an error response',
);
const loadInvalidResponse = chunkLoader(() => import('./error-conversion.js'), 'code to report an invalid response', false);

/** The typed error of a JSON-RPC error object; `status` is the HTTP status it came with, if any. */
export async function jsonRpcError(error: { code: number; message?: unknown; data?: unknown }, status?: number): Promise<A2AError> {
  const converted = (await loadErrorConverters()).fromJsonRpcError(error);
  return status === undefined ? converted : markObservedStatus(converted, status);
}

/**
 * `InvalidAgentResponseError` with `message`, for a result the validator refused. If its class cannot
 * load, a transport error that is not retryable (the agent's answer was read, and refused).
 */
export async function invalidAgentResponse(message: string): Promise<A2AError> {
  return new (await loadInvalidResponse()).InvalidAgentResponseError({ message });
}
