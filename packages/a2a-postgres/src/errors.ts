import { type A2AErrorOptions, ServiceUnavailableError } from '@a2aplane/a2a-types';

/** Why PostgreSQL could not serve a request; crosses the wire as `ErrorInfo.metadata.cause`. */
export type PostgresUnavailableCause = 'unreachable' | 'timeout' | 'closed';

/**
 * PostgreSQL did not answer (down, restarting, or slower than the statement deadline): the
 * store's, bus's and replay cache's `ServiceUnavailableError` (HTTP 503, reason
 * `SERVICE_UNAVAILABLE`, retryable, `Retry-After: 1`) with `metadata.backend` `postgres` and
 * `metadata.cause`. The message names no host, table or statement: it crosses the wire.
 */
export class PostgresUnavailableError extends ServiceUnavailableError {
  /** What went wrong, as sent in `metadata.cause`. */
  readonly failure: PostgresUnavailableCause;

  constructor(cause: PostgresUnavailableCause, options: Omit<A2AErrorOptions, 'metadata' | 'message'> = {}) {
    super({
      message: `Shared state is unavailable (PostgreSQL ${cause === 'timeout' ? 'did not answer in time' : 'is not reachable'}); retry later`,
      retryAfterSeconds: 1,
      ...options,
      metadata: { backend: 'postgres', cause },
    });
    this.name = 'PostgresUnavailableError';
    this.failure = cause;
  }
}

/** `migrate()` could not bring the schema to the version asked for; nothing was changed. Local: never crosses the wire. */
export class MigrationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MigrationError';
  }
}

/**
 * A push config could not be sealed or opened: no key for its key id, or the ciphertext does not
 * authenticate (tampered, or moved to another task's row). Local: the server reports it as an
 * internal error without its message.
 */
export class PushConfigCryptoError extends Error {
  readonly keyId: string;
  constructor(message: string, keyId: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PushConfigCryptoError';
    this.keyId = keyId;
  }
}
