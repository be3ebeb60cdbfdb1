import { A2A_PROTOCOL_VERSION, type AgentCard, type AgentInterface, PROTOCOL_BINDING } from '@a2aplane/a2a-types';

/**
 * The `AgentInterface` of a gRPC endpoint. `target` is a gRPC target such as `agent.example.com:443`
 * or `127.0.0.1:50051` (what gRPC clients, the official SDK's included, dial).
 */
export function grpcInterface(target: string): AgentInterface {
  if (typeof target !== 'string' || target.trim() === '')
    throw new TypeError(`expected a gRPC target such as host:port, got ${JSON.stringify(target)}`);
  return { url: target, protocolBinding: PROTOCOL_BINDING.grpc, protocolVersion: A2A_PROTOCOL_VERSION };
}

/**
 * A copy of `card` that also advertises the gRPC endpoint at `target` (appended after the HTTP
 * interfaces, so clients that prefer the card's order keep their first choice). An existing GRPC
 * interface with the same URL is not added twice.
 */
export function withGrpcInterface(card: AgentCard, target: string): AgentCard {
  const grpc = grpcInterface(target);
  const existing = card.supportedInterfaces.some((i) => i.protocolBinding === PROTOCOL_BINDING.grpc && i.url === grpc.url);
  return existing ? card : { ...card, supportedInterfaces: [...card.supportedInterfaces, grpc] };
}
