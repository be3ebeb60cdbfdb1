import { ERROR_INFO_TYPE } from '../constants.js';
import type { A2AError } from './a2a-error.js';
import type { ERROR_CLASSES } from './classes.js';
import { CONTROL_PLANE_ERROR_CODE, type ERROR_CODE_TABLE, type ErrorCodeEntry, type ErrorReason } from './codes.js';
import { type ErrorDetail, findErrorInfo } from './error-info.js';

/** The classes and the table the converters build errors from: the root's, so that `instanceof` holds. */
export interface ErrorConverterParts {
  A2AError: typeof A2AError;
  classes: typeof ERROR_CLASSES;
  table: typeof ERROR_CODE_TABLE;
}

export interface ErrorConverters {
  /**
   * Turns a JSON-RPC error object back into its class. A2A codes map one to one; for -32000 the
   * `ErrorInfo` reason picks the control-plane class. Unknown codes keep their code on a plain A2AError.
   */
  fromJsonRpcError(error: { code: number; message?: unknown; data?: unknown }): A2AError;
  /**
   * Turns a REST error response (spec §11.6) back into its class, by the `ErrorInfo` reason when
   * present, else by HTTP status for the few statuses that name one error.
   */
  fromRestError(httpStatus: number, body: unknown): A2AError;
}

/**
 * `fromJsonRpcError` and `fromRestError` over the given classes. The root's `fromJsonRpcError` and
 * `fromRestError` are these, over the root's classes.
 */
export function createErrorConverters({ A2AError, classes, table }: ErrorConverterParts): ErrorConverters {
  const REASON_BY_CODE = new Map<number, ErrorReason>();
  for (const [reason, entry] of Object.entries(table) as [ErrorReason, ErrorCodeEntry][]) {
    if (entry.jsonRpcCode !== CONTROL_PLANE_ERROR_CODE) REASON_BY_CODE.set(entry.jsonRpcCode, reason);
  }

  const isKnownReason = (reason: string): reason is ErrorReason => Object.hasOwn(table, reason);

  function otherDetails(details: unknown): ErrorDetail[] {
    if (!Array.isArray(details)) return [];
    return details.filter(
      (detail): detail is ErrorDetail =>
        typeof detail === 'object' &&
        detail !== null &&
        typeof (detail as Record<string, unknown>)['@type'] === 'string' &&
        (detail as Record<string, unknown>)['@type'] !== ERROR_INFO_TYPE,
    );
  }

  function build(reason: ErrorReason | undefined, fallback: ErrorCodeEntry, message: string, details: unknown): A2AError {
    const info = findErrorInfo(details);
    const metadata = info?.metadata;
    const retryAfter = metadata?.retryAfterSeconds === undefined ? undefined : Number(metadata.retryAfterSeconds);
    const options = {
      message,
      details: otherDetails(details),
      ...(metadata ? { metadata } : {}),
      ...(retryAfter !== undefined && Number.isFinite(retryAfter) ? { retryAfterSeconds: retryAfter } : {}),
    };
    if (reason) return new classes[reason](options);
    return new A2AError(fallback, options);
  }

  function fromJsonRpcError(error: { code: number; message?: unknown; data?: unknown }): A2AError {
    const message = typeof error.message === 'string' ? error.message : 'Unknown error';
    const info = findErrorInfo(error.data);
    const byCode = REASON_BY_CODE.get(error.code);
    const reason = byCode ?? (info && isKnownReason(info.reason) ? info.reason : undefined);
    const fallback: ErrorCodeEntry = {
      reason: info?.reason ?? 'UNKNOWN',
      domain: info?.domain ?? '',
      jsonRpcCode: error.code,
      httpStatus: 500,
      grpcStatus: 'INTERNAL',
      message,
      retryable: false,
    };
    return build(reason, fallback, message, error.data);
  }

  function fromRestError(httpStatus: number, body: unknown): A2AError {
    const error =
      typeof body === 'object' && body !== null && typeof (body as Record<string, unknown>).error === 'object'
        ? ((body as Record<string, unknown>).error as Record<string, unknown>)
        : {};
    const message = typeof error.message === 'string' ? error.message : `HTTP ${httpStatus}`;
    const info = findErrorInfo(error.details);
    let reason: ErrorReason | undefined = info && isKnownReason(info.reason) ? info.reason : undefined;
    if (!reason && httpStatus === 401) reason = 'UNAUTHENTICATED';
    if (!reason && httpStatus === 429) reason = 'RATE_LIMITED';
    const fallback: ErrorCodeEntry = {
      reason: info?.reason ?? 'UNKNOWN',
      domain: info?.domain ?? '',
      jsonRpcCode: table.INTERNAL.jsonRpcCode,
      httpStatus,
      grpcStatus: 'INTERNAL',
      message,
      retryable: httpStatus >= 500,
    };
    return build(reason, fallback, message, error.details);
  }

  return { fromJsonRpcError, fromRestError };
}
