import type { A2AError } from '@a2aplane/a2a-types';
import type { ErrorConverters } from '@a2aplane/a2a-types/error-convert';
import { A2ATransportError } from './errors.js';
import { markObservedStatus } from './retry.js';

type ErrorClasses = typeof import('./error-conversion.js');
let errorClasses: Promise<ErrorClasses> | undefined;

/**
 * The a2a-types error classes and the converters of error responses into them, loaded when the
 * first error response or invalid result arrives: calls that succeed never load them (decisions
 * 0050, 0052). A failed load is a transport failure saying `what` could not be done (retryable when
 * `retryable`); the next one loads again.
 */
function loadErrorClasses(what: string, retryable: boolean): Promise<ErrorClasses> {
  errorClasses ??= import('./error-conversion.js');
  return errorClasses.catch((error: unknown) => {
    errorClasses = undefined;
    throw new A2ATransportError(`Could not load the code to ${what}`, { cause: error, retryable });
  });
}

/** `fromJsonRpcError` and `fromRestError` of the a2a-types root, loaded on demand. */
export const loadErrorConverters = (): Promise<ErrorConverters> => loadErrorClasses('read an error response', true);

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
  return new (await loadErrorClasses('report an invalid response', false)).InvalidAgentResponseError({ message });
}
