import {
  A2AError,
  type A2AErrorOptions,
  A2APLANE_ERROR_DOMAIN,
  CONTROL_PLANE_ERROR_CODE,
  type ErrorCodeEntry,
  ServiceUnavailableError,
} from '@a2aplane/a2a-types';

/** Why Redis could not serve a request; crosses the wire as `ErrorInfo.metadata.cause`. */
export type RedisUnavailableCause = 'unreachable' | 'timeout' | 'closed';

/**
 * Redis did not answer (down, reconnecting, or slower than the command deadline): the store's, the
 * bus's and the governance backends' `ServiceUnavailableError` (HTTP 503, gRPC UNAVAILABLE, reason `SERVICE_UNAVAILABLE`,
 * retryable, `Retry-After: 1`) with `metadata.backend` `redis` and `metadata.cause`. The message
 * names no host and no command: it crosses the wire.
 */
export class RedisUnavailableError extends ServiceUnavailableError {
  /** What went wrong, as sent in `metadata.cause`. */
  readonly failure: RedisUnavailableCause;

  constructor(cause: RedisUnavailableCause, options: Omit<A2AErrorOptions, 'metadata' | 'message'> = {}) {
    super({
      message: `Shared state is unavailable (Redis ${cause === 'timeout' ? 'did not answer in time' : 'is not reachable'}); retry later`,
      retryAfterSeconds: 1,
      ...options,
      metadata: { backend: 'redis', cause },
    });
    this.name = 'RedisUnavailableError';
    this.failure = cause;
  }
}

const REPLICA_LOST: ErrorCodeEntry = {
  reason: 'REPLICA_LOST',
  domain: A2APLANE_ERROR_DOMAIN,
  jsonRpcCode: CONTROL_PLANE_ERROR_CODE,
  httpStatus: 503,
  grpcStatus: 'UNAVAILABLE',
  message: 'The replica running this task stopped before the task ended; it was not run again (send the message again to retry)',
  retryable: true,
};

/**
 * Why a task ended FAILED when the replica running its executor died (its liveness lease expired):
 * the `ErrorInfo` (reason `REPLICA_LOST`, domain `a2aplane`) a surviving replica puts in the
 * task's status message. Retryable: the work was not done, a new message may succeed. It never
 * names the lost replica (ids may be host names); `onOrphanedTask` tells the operator which.
 */
export class ReplicaLostError extends A2AError {
  static override readonly reason = 'REPLICA_LOST';
  constructor(options: Omit<A2AErrorOptions, 'message'> = {}) {
    super(REPLICA_LOST, options);
    this.name = 'ReplicaLostError';
  }
}
