import { create, fromBinary, fromJson, type JsonValue, type Registry, createRegistry, toBinary, toJson } from '@bufbuild/protobuf';
import { AnySchema } from '@bufbuild/protobuf/wkt';
import { type A2AError, type ErrorDetail, fromRestError, type GrpcStatus } from '@a2aplane/a2a-types';
import { status as Status, Metadata, type StatusObject } from '@grpc/grpc-js';
import * as errorDetails from './gen/google/rpc/error_details_pb.js';
import { StatusSchema } from './gen/google/rpc/status_pb.js';

/** The trailer that carries a binary `google.rpc.Status` (with `ErrorInfo` in its details). */
export const GRPC_STATUS_DETAILS_KEY = 'grpc-status-details-bin';

/** `google.rpc` error detail types we can pack into and read from the status details. */
const DETAIL_REGISTRY: Registry = createRegistry(
  errorDetails.ErrorInfoSchema,
  errorDetails.BadRequestSchema,
  errorDetails.RetryInfoSchema,
  errorDetails.DebugInfoSchema,
  errorDetails.QuotaFailureSchema,
  errorDetails.PreconditionFailureSchema,
  errorDetails.RequestInfoSchema,
  errorDetails.ResourceInfoSchema,
  errorDetails.HelpSchema,
  errorDetails.LocalizedMessageSchema,
);

/** gRPC canonical status name -> code. */
export const GRPC_STATUS_CODES: Readonly<Record<GrpcStatus, Status>> = {
  INVALID_ARGUMENT: Status.INVALID_ARGUMENT,
  NOT_FOUND: Status.NOT_FOUND,
  FAILED_PRECONDITION: Status.FAILED_PRECONDITION,
  INTERNAL: Status.INTERNAL,
  UNAUTHENTICATED: Status.UNAUTHENTICATED,
  PERMISSION_DENIED: Status.PERMISSION_DENIED,
  RESOURCE_EXHAUSTED: Status.RESOURCE_EXHAUSTED,
  UNIMPLEMENTED: Status.UNIMPLEMENTED,
  UNAVAILABLE: Status.UNAVAILABLE,
};

/** The HTTP status a gRPC code stands for, used only when a status carries no ErrorInfo. */
const HTTP_BY_CODE: Partial<Record<Status, number>> = {
  [Status.INVALID_ARGUMENT]: 400,
  [Status.FAILED_PRECONDITION]: 400,
  [Status.OUT_OF_RANGE]: 400,
  [Status.UNAUTHENTICATED]: 401,
  [Status.PERMISSION_DENIED]: 403,
  [Status.NOT_FOUND]: 404,
  [Status.UNIMPLEMENTED]: 501,
  [Status.ALREADY_EXISTS]: 409,
  [Status.ABORTED]: 409,
  [Status.RESOURCE_EXHAUSTED]: 429,
  [Status.CANCELLED]: 499,
  [Status.UNAVAILABLE]: 503,
  [Status.DEADLINE_EXCEEDED]: 504,
};

/** The HTTP status a gRPC code stands for (500 for codes without a closer one). */
export function httpStatusOfGrpcCode(code: number): number {
  return HTTP_BY_CODE[code as Status] ?? 500;
}

/** Packs a ProtoJSON `Any` detail; details of types outside `google.rpc` are left out. */
function packDetail(detail: ErrorDetail) {
  try {
    return fromJson(AnySchema, detail as JsonValue, { registry: DETAIL_REGISTRY, ignoreUnknownFields: true });
  } catch {
    return undefined;
  }
}

/**
 * An A2AError as a gRPC status (spec §10.6): the canonical code of the error table, the message,
 * and a binary `google.rpc.Status` in `grpc-status-details-bin` whose first detail is the
 * `google.rpc.ErrorInfo` (reason, domain, metadata), followed by the error's other details.
 */
export function toGrpcStatus(error: A2AError): Partial<StatusObject> & { code: Status; details: string; metadata: Metadata } {
  const code = GRPC_STATUS_CODES[error.grpcStatus] ?? Status.INTERNAL;
  const details = error.allDetails().flatMap((detail) => packDetail(detail) ?? []);
  const body = create(StatusSchema, { code, message: error.message, details });
  const metadata = new Metadata();
  metadata.set(GRPC_STATUS_DETAILS_KEY, Buffer.from(toBinary(StatusSchema, body)));
  return { code, details: error.message, metadata };
}

/** The ProtoJSON `Any` details of a `grpc-status-details-bin` value, or [] when it is missing or malformed. */
export function readStatusDetails(metadata: Metadata | undefined): ErrorDetail[] {
  const raw = metadata?.get(GRPC_STATUS_DETAILS_KEY)[0];
  if (raw === undefined || typeof raw === 'string') return [];
  try {
    const status = fromBinary(StatusSchema, raw);
    return status.details.flatMap((any) => {
      try {
        return [toJson(AnySchema, any, { registry: DETAIL_REGISTRY }) as ErrorDetail];
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}

/**
 * A gRPC status back to its A2AError class: by the ErrorInfo reason when the status details carry
 * one (the same table as JSON-RPC and REST), else by the status code.
 */
export function fromGrpcStatus(status: { code: number; details?: string; metadata?: Metadata }): A2AError {
  const details = readStatusDetails(status.metadata);
  const message = status.details || `gRPC status ${status.code}`;
  return fromRestError(httpStatusOfGrpcCode(status.code), { error: { message, details } });
}
