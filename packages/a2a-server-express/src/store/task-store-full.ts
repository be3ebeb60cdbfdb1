import { RateLimitedError } from '@a2aplane/a2a-types';
import type { ShareLimit } from './owner-shares.js';

/**
 * The in-memory store refused a write: it is at its task count or byte budget with only live
 * tasks left (never evicted), or one task would outgrow `maxTaskBytes`. Crosses the wire as
 * `RateLimitedError` (429, `RESOURCE_EXHAUSTED`, retryable) with `metadata.limit` naming the cap.
 */
export class TaskStoreFullError extends RateLimitedError {
  readonly limit: 'maxTasks' | 'maxBytes' | 'maxTaskBytes' | ShareLimit;

  constructor(limit: 'maxTasks' | 'maxBytes' | 'maxTaskBytes' | ShareLimit, message: string) {
    super({ message, metadata: { limit }, ...(limit === 'maxTaskBytes' ? {} : { retryAfterSeconds: 1 }) });
    this.name = 'TaskStoreFullError';
    this.limit = limit;
  }
}
