import { GrpcTransport as GrpcTransportClass } from './client.js';
import { GrpcA2AClient as GrpcA2AClientClass } from './client.js';
export { grpcInterface, withGrpcInterface } from './card.js';
export {
  createGrpcA2AClient,
  type GrpcA2AClientOptions,
  createGrpcTransport,
  type GrpcStreamItem,
  type GrpcTransportCallOptions,
  type GrpcTransportOptions,
} from './client.js';
export { decodeToJson, EVENT_ID_FIELD, encodeFromJson, GRPC_OPERATIONS, type GrpcOperation } from './codec.js';
export {
  type A2AGrpcBinding,
  type A2AGrpcListener,
  type BindA2AGrpcOptions,
  bindA2AGrpc,
  type ListenA2AGrpcOptions,
  listenA2AGrpc,
} from './listen.js';
export {
  A2A_EXTENSIONS_METADATA_KEY,
  A2A_VERSION_METADATA_KEY,
  type AuthCallView,
  authRequestOf,
  LAST_EVENT_ID_METADATA_KEY,
} from './metadata.js';
export { type A2AGrpcService, type A2AGrpcServiceOptions, a2aServiceDefinition, createA2AGrpcService } from './server.js';
export { fromGrpcStatus, GRPC_STATUS_CODES, GRPC_STATUS_DETAILS_KEY, readStatusDetails, toGrpcStatus } from './status.js';
export {
  createGrpcTransportFactory,
  type GrpcTransportContext,
  type GrpcTransportFactory,
  type GrpcTransportFactoryOptions,
} from './transport-factory.js';

/** An A2A client over gRPC. Made by `createGrpcA2AClient`. */
export type GrpcA2AClient = GrpcA2AClientClass;
/** @deprecated use `createGrpcA2AClient`; the class stays for one minor release. */
export const GrpcA2AClient: typeof GrpcA2AClientClass = GrpcA2AClientClass;

/** A gRPC transport to one A2A agent. Made by `createGrpcTransport`. */
export type GrpcTransport = GrpcTransportClass;
/** @deprecated use `createGrpcTransport`; the class stays for one minor release. */
export const GrpcTransport: typeof GrpcTransportClass = GrpcTransportClass;
