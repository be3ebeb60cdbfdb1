import { A2AError, type A2AErrorOptions, CONTROL_PLANE_ERROR_CODE, type ErrorCodeEntry } from '@a2aplane/a2a-types';

/** Why Redis could not serve a request; crosses the wire as `ErrorInfo.metadata.cause`. */
export type RedisUnavailableCause = 'unreachable' | 'timeout' | 'closed';

/** The wire entry of `RedisUnavailableError`: HTTP 503, gRPC UNAVAILABLE, JSON-RPC -32000, retryable. */
export const REDIS_UNAVAILABLE_ENTRY: ErrorCodeEntry = {
  reason: 'STORE_UNAVAILABLE',
  domain: 'a2aplane',
  jsonRpcCode: CONTROL_PLANE_ERROR_CODE,
  httpStatus: 503,
  grpcStatus: 'UNAVAILABLE',
  message: 'The shared store is unavailable; retry later',
  retryable: true,
};

/**
 * Redis did not answer (down, reconnecting, or slower than the command deadline). The server
 * answers 503 with reason `STORE_UNAVAILABLE`, `metadata.cause` and `Retry-After`. The message
 * names no host and no command detail: it crosses the wire.
 */
export class RedisUnavailableError extends A2AError {
  static override readonly reason = 'STORE_UNAVAILABLE';
  /** What went wrong, as sent in `metadata.cause`. */
  readonly failure: RedisUnavailableCause;

  constructor(cause: RedisUnavailableCause, options: Omit<A2AErrorOptions, 'metadata'> = {}) {
    super(REDIS_UNAVAILABLE_ENTRY, { retryAfterSeconds: 1, ...options, metadata: { cause } });
    this.name = 'RedisUnavailableError';
    this.failure = cause;
  }
}
