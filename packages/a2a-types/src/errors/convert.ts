import { A2AError } from './a2a-error.js';
import { ERROR_CLASSES } from './classes.js';
import { ERROR_CODE_TABLE } from './codes.js';
import { createErrorConverters } from './convert-core.js';

const converters = /* @__PURE__ */ createErrorConverters({ A2AError, classes: ERROR_CLASSES, table: ERROR_CODE_TABLE });

/**
 * Turns a JSON-RPC error object back into its class. A2A codes map one to one; for -32000 the
 * `ErrorInfo` reason picks the control-plane class. Unknown codes keep their code on a plain A2AError.
 */
export function fromJsonRpcError(error: { code: number; message?: unknown; data?: unknown }): A2AError {
  return converters.fromJsonRpcError(error);
}

/**
 * Turns a REST error response (spec §11.6) back into its class, by the `ErrorInfo` reason when
 * present, else by HTTP status for the few statuses that name one error.
 */
export function fromRestError(httpStatus: number, body: unknown): A2AError {
  return converters.fromRestError(httpStatus, body);
}
