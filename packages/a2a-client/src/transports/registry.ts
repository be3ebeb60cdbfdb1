import { createJsonRpcTransport } from './json-rpc.js';
import { createRestTransport } from './rest.js';
import type { TransportRegistry } from './types.js';

/**
 * The bindings built into the client. Register another one (such as `GRPC` from
 * `@a2aplane/a2a-grpc/client`) with `createA2AClient({ transports: { GRPC: factory } })`.
 */
export const defaultTransports: TransportRegistry = {
  JSONRPC: (agentInterface, context) => createJsonRpcTransport(agentInterface.url, context),
  'HTTP+JSON': (agentInterface, context) => createRestTransport(agentInterface.url, context),
};
