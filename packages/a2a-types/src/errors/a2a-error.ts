import { BAD_REQUEST_TYPE, ERROR_INFO_TYPE } from '../constants.js';
import type { JsonRpcErrorObject } from '../json-rpc-core.js';
import type { FieldViolation } from '../validation.js';
import { A2A_ERROR_BRAND as BRAND } from './brand.js';
import { ERROR_CODE_TABLE, type ErrorCodeEntry, type ErrorReason, type GrpcStatus } from './codes.js';
import type { ErrorDetail, ErrorInfoDetail } from './error-info.js';

export interface A2AErrorOptions {
  /** Overrides the standard message. Never put secrets or internal details here: it crosses the wire. */
  message?: string;
  /** `ErrorInfo.metadata`: string facts about the error, such as `taskId`. */
  metadata?: Record<string, string>;
  /** Further detail objects (each with `@type`) besides the `ErrorInfo` this error always carries. */
  details?: ErrorDetail[];
  /** Seconds after which a retry may succeed; servers send it as `Retry-After`. */
  retryAfterSeconds?: number;
  cause?: unknown;
}

/** The REST error body of spec §11.6 (`google.rpc.Status` in JSON). */
export interface RestErrorBody {
  error: {
    code: number;
    status: GrpcStatus;
    message: string;
    details: ErrorDetail[];
  };
}

/**
 * An error that crosses the wire: each subclass knows its JSON-RPC code, HTTP status and
 * `ErrorInfo` reason, read from `ERROR_CODE_TABLE`. Use `X.isInstance(e)` rather than
 * `instanceof`: it also recognises errors from another copy of this package.
 */
export class A2AError extends Error {
  /** The reason subclasses stand for; `undefined` on the base class. */
  static readonly reason: string | undefined = undefined;

  declare readonly reason: string;
  declare readonly domain: string;
  declare readonly code: number;
  declare readonly httpStatus: number;
  declare readonly grpcStatus: GrpcStatus;
  declare readonly retryable: boolean;
  declare readonly metadata: Readonly<Record<string, string>>;
  declare readonly details: readonly ErrorDetail[];
  declare readonly retryAfterSeconds: number | undefined;

  constructor(entry: ErrorCodeEntry | ErrorReason, options: A2AErrorOptions = {}) {
    const resolved = typeof entry === 'string' ? ERROR_CODE_TABLE[entry] : entry;
    super(options.message ?? resolved.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'A2AError';
    this.reason = resolved.reason;
    this.domain = resolved.domain;
    this.code = resolved.jsonRpcCode;
    this.httpStatus = resolved.httpStatus;
    this.grpcStatus = resolved.grpcStatus;
    this.retryable = resolved.retryable;
    this.retryAfterSeconds = options.retryAfterSeconds;
    const metadata = { ...options.metadata };
    if (options.retryAfterSeconds !== undefined) metadata.retryAfterSeconds = String(options.retryAfterSeconds);
    this.metadata = metadata;
    this.details = options.details ?? [];
    BRAND.mark(this);
  }

  /** True when `value` is an A2AError of this class (by reason), from any copy of this package. */
  static isInstance<T extends abstract new (...args: never[]) => A2AError>(this: T, value: unknown): value is InstanceType<T> {
    if (!BRAND.is(value)) return false;
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass the check was called on.
    const reason = (this as unknown as { reason: string | undefined }).reason;
    return reason === undefined || (value as A2AError).reason === reason;
  }

  toErrorInfo(): ErrorInfoDetail {
    const info: ErrorInfoDetail = { '@type': ERROR_INFO_TYPE, reason: this.reason, domain: this.domain };
    if (Object.keys(this.metadata).length > 0) info.metadata = { ...this.metadata };
    return info;
  }

  /** `ErrorInfo` first, then any other details. */
  allDetails(): ErrorDetail[] {
    return [this.toErrorInfo() as unknown as ErrorDetail, ...this.details];
  }

  toJsonRpcError(): JsonRpcErrorObject {
    return { code: this.code, message: this.message, data: this.allDetails() };
  }

  toRestError(): RestErrorBody {
    return {
      error: { code: this.httpStatus, status: this.grpcStatus, message: this.message, details: this.allDetails() },
    };
  }

  /** Field violations carried in a `google.rpc.BadRequest` detail, if any. */
  get fieldViolations(): FieldViolation[] {
    const badRequest = this.details.find((detail) => detail['@type'] === BAD_REQUEST_TYPE);
    const violations = badRequest?.fieldViolations;
    return Array.isArray(violations) ? (violations as FieldViolation[]) : [];
  }
}
