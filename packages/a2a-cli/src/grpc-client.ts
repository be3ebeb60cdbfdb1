import { type A2AClient, type AuthProvider, createA2AClient } from '@a2aplane/a2a-client';
import type { AgentCard, AgentInterface } from '@a2aplane/a2a-types';
import { agentUrl } from './args.js';
import type { CardTrust } from './commands/verify.js';
import { usageError } from './errors.js';
import type { CliIo } from './io.js';

/** A command's client and what to close when the command is done. */
export interface CliClient {
  client: A2AClient;
  close(): void;
}

interface GrpcClientOptions {
  timeoutMs: number;
  headers: Record<string, string>;
  /** Talk plaintext (no TLS); the default is TLS. */
  plaintext: boolean;
  trust: CardTrust;
  /** Signs every call (`--sign-with`): the transport passes it the serialized request message. */
  auth?: AuthProvider;
}

/** `host:port` or `[ipv6]:port`: what a gRPC client dials. */
const GRPC_TARGET = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+):\d{1,5}$/i;

/** The card of an agent known only by its gRPC target (it offers gRPC alone, so there is no card to fetch). */
function targetCard(target: string, grpcInterface: (target: string) => AgentInterface): AgentCard {
  return {
    name: target,
    description: `the gRPC agent at ${target}`,
    version: '1.0.0',
    supportedInterfaces: [grpcInterface(target)],
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
}

/**
 * The a2a-client with `@a2aplane/a2a-grpc` registered as its `GRPC` transport and preferred, so
 * retries, timeouts, resume and typed errors are the client's, as over HTTP. `url` is an http(s)
 * URL (the card is read and verified there and its GRPC interface dialed) or a gRPC target
 * `host:port` (an agent that offers gRPC alone). The gRPC packages are loaded only here, so other
 * commands do not pay for them.
 */
export async function grpcClientFor(command: string, io: CliIo, url: string, options: GrpcClientOptions): Promise<CliClient> {
  const isUrl = /^https?:\/\//i.test(url);
  if (!isUrl && !GRPC_TARGET.test(url)) {
    throw usageError(
      `${command}: with --transport grpc, expected an http(s) URL of the agent or a gRPC target host:port, got ${JSON.stringify(url)}`,
    );
  }
  if (!isUrl && options.trust.requireSignedCard) {
    throw usageError(`${command}: a bare gRPC target has no card to verify; give the agent's http(s) URL with --require-signed`);
  }
  const [{ createGrpcTransportFactory, grpcInterface }, { credentials }] = await Promise.all([
    import('@a2aplane/a2a-grpc/client'),
    import('@grpc/grpc-js'),
  ]);
  const grpc = createGrpcTransportFactory({ credentials: options.plaintext ? credentials.createInsecure() : credentials.createSsl() });
  const common = {
    fetch: io.fetch,
    timeoutMs: options.timeoutMs,
    headers: options.headers,
    retry: { retries: 1 },
    ...(options.auth ? { auth: options.auth } : {}),
    transports: { GRPC: grpc },
    preferredBindings: ['GRPC'],
  };
  const client = isUrl
    ? createA2AClient({ baseUrl: agentUrl(command, url), ...common, ...options.trust })
    : createA2AClient({ card: targetCard(url, grpcInterface), ...common });
  return { client, close: () => grpc.close() };
}
