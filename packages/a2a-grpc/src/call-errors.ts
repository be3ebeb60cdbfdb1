import { A2AAbortError, A2ATimeoutError, A2ATransportError } from '@a2aplane/a2a-client';
import { InvalidAgentResponseError } from '@a2aplane/a2a-types';
import { type ServiceError, status as Status } from '@grpc/grpc-js';
import type { GrpcOperation } from './codec.js';
import { fromGrpcStatus, httpStatusOfGrpcCode, readStatusDetails } from './status.js';
import type { GrpcTransportCallOptions } from './transport-options.js';

/** gRPC codes that say the agent was not reached or not able to answer: worth a retry. */
const RETRYABLE = new Set<number>([Status.UNAVAILABLE, Status.RESOURCE_EXHAUSTED, Status.ABORTED]);

/**
 * The client error a failed call stands for: an aborted signal `A2AAbortError`, a passed deadline
 * `A2ATimeoutError`, a status with an `ErrorInfo` its `A2AError` class, any other status (the agent
 * was not reached) an `A2ATransportError`.
 */
export function grpcCallError(error: ServiceError, options: GrpcTransportCallOptions, url: string): Error {
  if (error.code === Status.CANCELLED && options.signal?.aborted) return new A2AAbortError({ cause: options.signal.reason });
  if (error.code === Status.DEADLINE_EXCEEDED && options.timeoutMs !== undefined)
    return new A2ATimeoutError(options.timeoutMs, { cause: error });
  if (readStatusDetails(error.metadata).some((detail) => detail['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo'))
    return fromGrpcStatus(error);
  // `status` is the HTTP status the code stands for (UNAUTHENTICATED -> 401, ...), as the HTTP transports report it.
  return new A2ATransportError(`gRPC ${Status[error.code] ?? error.code}: ${error.details}`, {
    status: httpStatusOfGrpcCode(error.code),
    retryable: RETRYABLE.has(error.code),
    url,
    cause: error,
  });
}

/** The error of a response message that does not decode as the operation's output type. */
export function undecodableResponse(operation: GrpcOperation, cause: unknown): InvalidAgentResponseError {
  return new InvalidAgentResponseError({
    message: `expected a protobuf ${operation.output.typeName} from the agent, got bytes that do not decode`,
    cause,
  });
}
