import type { AuthProvider } from '@a2aplane/a2a-client';
import type { AgentInterface } from '@a2aplane/a2a-types';
import type { ChannelCredentials, ChannelOptions } from '@grpc/grpc-js';
import { GrpcTransport } from './transport.js';

export interface GrpcTransportFactoryOptions {
  /**
   * Required: `credentials.createSsl()` for TLS, or `credentials.createInsecure()` to talk
   * plaintext (a deliberate choice, e.g. to a local agent).
   */
  credentials: ChannelCredentials;
  /** grpc-js channel options (message size limits, keepalive, ...). */
  channelOptions?: ChannelOptions;
}

/** What the client hands a transport factory; structurally `TransportContext` of `@a2aplane/a2a-client`. */
export interface GrpcTransportContext {
  auth?: AuthProvider | undefined;
}

/** A `TransportFactory` for the `GRPC` binding; `close()` closes the channels of every transport it built. */
export interface GrpcTransportFactory {
  (agentInterface: AgentInterface, context?: GrpcTransportContext): GrpcTransport;
  close(): void;
}

/**
 * The gRPC binding for `createA2AClient`: register it as `transports: { GRPC: factory }`. Each
 * selected GRPC interface gets a transport whose channel connects on the first call; the client's
 * auth provider adds its headers as metadata.
 */
export function createGrpcTransportFactory(options: GrpcTransportFactoryOptions): GrpcTransportFactory {
  if (!options?.credentials) throw new TypeError('expected credentials (credentials.createSsl or, deliberately, createInsecure), got none');
  const built = new Set<GrpcTransport>();
  const factory = (agentInterface: AgentInterface, context: GrpcTransportContext = {}): GrpcTransport => {
    if (agentInterface?.protocolBinding !== 'GRPC')
      throw new TypeError(`expected a GRPC interface, got ${String(agentInterface?.protocolBinding)}`);
    const transport = new GrpcTransport({
      target: agentInterface.url,
      credentials: options.credentials,
      ...(options.channelOptions ? { channelOptions: options.channelOptions } : {}),
      auth: context.auth,
    });
    built.add(transport);
    return transport;
  };
  return Object.assign(factory, {
    close() {
      for (const transport of built) transport.close();
      built.clear();
    },
  });
}
