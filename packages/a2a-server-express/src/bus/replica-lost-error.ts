import { A2AError, type A2AErrorOptions, A2APLANE_ERROR_DOMAIN, CONTROL_PLANE_ERROR_CODE, type ErrorCodeEntry } from '@a2aplane/a2a-types';

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
 * Why a task ended FAILED when the replica running its executor died (decision 0032): the
 * `ErrorInfo` (reason `REPLICA_LOST`, domain `a2aplane`) a surviving replica puts in the task's
 * status message, whatever the shared backend (Redis, PostgreSQL). Retryable: the work was not
 * done, a new message may succeed. It never names the lost replica (ids may be host names).
 */
export class ReplicaLostError extends A2AError {
  static override readonly reason = 'REPLICA_LOST';
  constructor(options: Omit<A2AErrorOptions, 'message'> = {}) {
    super(REPLICA_LOST, options);
    this.name = 'ReplicaLostError';
  }
}
