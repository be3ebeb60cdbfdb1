import { type A2AErrorOptions, ServiceUnavailableError } from '@a2aplane/a2a-types';

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

// One class for every backend (decision 0132): `instanceof` holds whichever bus ended the task.
export { ReplicaLostError } from '@a2aplane/a2a-server-express';
