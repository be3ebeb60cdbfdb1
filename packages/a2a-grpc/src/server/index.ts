// The server half: the A2A gRPC service over an a2aplane server core, and the listener that serves it.
export { grpcInterface, withGrpcInterface } from '../card.js';
export { decodeToJson, EVENT_ID_FIELD, encodeFromJson, GRPC_OPERATIONS, type GrpcOperation } from '../codec.js';
export {
  type A2AGrpcBinding,
  type A2AGrpcListener,
  type BindA2AGrpcOptions,
  bindA2AGrpc,
  type ListenA2AGrpcOptions,
  listenA2AGrpc,
} from '../listen.js';
export {
  A2A_EXTENSIONS_METADATA_KEY,
  A2A_VERSION_METADATA_KEY,
  type AuthCallView,
  authRequestOf,
  LAST_EVENT_ID_METADATA_KEY,
} from '../metadata.js';
export { type A2AGrpcService, type A2AGrpcServiceOptions, a2aServiceDefinition, createA2AGrpcService } from '../server.js';
export { GRPC_STATUS_CODES, GRPC_STATUS_DETAILS_KEY, toGrpcStatus } from '../status.js';
