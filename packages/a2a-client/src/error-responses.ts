import { A2AError, ERROR_CLASSES, ERROR_CODE_TABLE } from '@a2aplane/a2a-types';
import type { ErrorConverters } from '@a2aplane/a2a-types/error-convert';
import { A2ATransportError } from './errors.js';
import { markObservedStatus } from './retry.js';

let converters: Promise<ErrorConverters> | undefined;

/**
 * The converters of error responses into the a2a-types classes (the root's, so that `instanceof`
 * holds), loaded when the first error response arrives: calls that succeed never load them
 * (decision 0050). A failed load is a retryable transport failure; the next error loads again.
 */
export function loadErrorConverters(): Promise<ErrorConverters> {
  converters ??= import('./error-conversion.js').then(
    (module) => module.createErrorConverters({ A2AError, classes: ERROR_CLASSES, table: ERROR_CODE_TABLE }),
    (error: unknown) => {
      converters = undefined;
      throw new A2ATransportError('Could not load the code to read an error response', { cause: error, retryable: true });
    },
  );
  return converters;
}

/** The typed error of a JSON-RPC error object; `status` is the HTTP status it came with, if any. */
export async function jsonRpcError(error: { code: number; message?: unknown; data?: unknown }, status?: number): Promise<A2AError> {
  const converted = (await loadErrorConverters()).fromJsonRpcError(error);
  return status === undefined ? converted : markObservedStatus(converted, status);
}
