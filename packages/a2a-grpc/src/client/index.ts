// The client half: the gRPC transport that plugs into `createA2AClient` (`transports: { GRPC: ... }`),
// and what it shares with servers (codec, status mapping, metadata keys, card helpers). It never loads
// the server half (server.ts, listen.ts) or a2a-server-express.
export { grpcInterface, withGrpcInterface } from '../card.js';
export { decodeToJson, EVENT_ID_FIELD, encodeFromJson, GRPC_OPERATIONS, type GrpcOperation } from '../codec.js';
export { A2A_EXTENSIONS_METADATA_KEY, A2A_VERSION_METADATA_KEY, LAST_EVENT_ID_METADATA_KEY } from '../metadata.js';
export { fromGrpcStatus, GRPC_STATUS_CODES, GRPC_STATUS_DETAILS_KEY, readStatusDetails } from '../status.js';
export {
  createGrpcTransportFactory,
  type GrpcTransportContext,
  type GrpcTransportFactory,
  type GrpcTransportFactoryOptions,
} from '../transport-factory.js';
export {
  createGrpcTransport,
  type GrpcStreamItem,
  GrpcTransport,
  type GrpcTransportCallOptions,
  type GrpcTransportOptions,
} from '../transport.js';
