/** The A2A protocol version this package models (`Major.Minor`, spec §3.6). */
export const A2A_PROTOCOL_VERSION = '1.0';
/** The version a server must assume when a request carries no `A2A-Version` (spec §3.6.2). */
export const A2A_LEGACY_PROTOCOL_VERSION = '0.3';
/** Versions this package can read and write (v0.3 through the `/v0_3` translators). */
export const A2A_SUPPORTED_PROTOCOL_VERSIONS = [A2A_PROTOCOL_VERSION, A2A_LEGACY_PROTOCOL_VERSION] as const;

/** Service parameter names (spec §3.2.6), sent as HTTP headers. */
export const A2A_VERSION_HEADER = 'A2A-Version';
export const A2A_EXTENSIONS_HEADER = 'A2A-Extensions';

/** Agent card discovery paths (spec §8.2). The legacy path is the one v0.3 agents used. */
export const WELL_KNOWN_AGENT_CARD_PATH = '/.well-known/agent-card.json';
export const LEGACY_WELL_KNOWN_AGENT_CARD_PATH = '/.well-known/agent.json';

/** Media types (spec §9.1, §11.1, §14.1). */
export const MEDIA_TYPE_JSON = 'application/json';
export const MEDIA_TYPE_A2A_JSON = 'application/a2a+json';
export const MEDIA_TYPE_EVENT_STREAM = 'text/event-stream';

/** `AgentInterface.protocolBinding` values of the standard bindings (spec §5). */
export const PROTOCOL_BINDING = {
  jsonRpc: 'JSONRPC',
  httpJson: 'HTTP+JSON',
  grpc: 'GRPC',
} as const;
export type ProtocolBinding = (typeof PROTOCOL_BINDING)[keyof typeof PROTOCOL_BINDING];

/** Default mount points of an a2aplane server (architecture guide, "Wire decisions"). */
export const DEFAULT_JSON_RPC_PATH = '/a2a/jsonrpc';
export const DEFAULT_REST_PATH = '/a2a/rest';

/** `google.rpc.ErrorInfo.domain` values. */
export const A2A_ERROR_DOMAIN = 'a2a-protocol.org';
export const A2APLANE_ERROR_DOMAIN = 'a2aplane';

/** ProtoJSON `Any` type URLs of the google.rpc error details we emit and read. */
export const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';
export const BAD_REQUEST_TYPE = 'type.googleapis.com/google.rpc.BadRequest';
