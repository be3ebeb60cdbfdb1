import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  agentIdFromPublicKey,
  createEd25519WebhookSigner,
  createJwks,
  generateKeyPair,
  type KeyPair,
  signAgentCard,
  withAgentIdExtension,
} from '@a2aplane/a2a-identity';
import {
  type A2AServer,
  createA2AServer,
  createNodeHttpHandler,
  DEFAULT_JWKS_PATH,
  createAgentCard,
  createPushSender,
  type PushDeliveryEvent,
  type WebhookUrlOptions,
} from '@a2aplane/a2a-server-express';
import { createServerInstrumentation } from '@a2aplane/a2a-otel';
import { createPrometheusMetrics } from '@a2aplane/a2a-otel/prometheus';
import { createEchoExecutor } from './echo-executor.js';
import { SUPPORTED_ARTIFACT_KIND_VERSIONS } from '@a2aplane/a2a-rulake-artifacts';

/** Where the echo agent publishes the public key its card signature's `jku` names. */
/** Where the agent serves the JWKS its signed card's `jku` points at. */
export const JWKS_PATH = DEFAULT_JWKS_PATH;

export interface EchoAgent {
  /** Base URL, such as `http://127.0.0.1:41234`. */
  url: string;
  agentId: string;
  key: KeyPair;
  server: A2AServer;
  /** The Prometheus scrape URL, when started with `metrics`. */
  metricsUrl?: string;
  close(): Promise<void>;
}

export interface StartEchoAgentOptions {
  host?: string;
  port?: number;
  key?: KeyPair;
  wordDelayMs?: number;
  /**
   * Which webhook URLs push notifications may go to. Default `{ allowLoopback: true }`: a local
   * development agent may call back to 127.0.0.1 (over http too); private and metadata addresses
   * stay refused. Pass `{}` to allow public https webhooks only.
   */
  webhooks?: WebhookUrlOptions;
  /** Each push delivery's outcome (delivered, retrying, failed, refused, dropped). */
  onPushEvent?: (event: PushDeliveryEvent) => void;
  /** Serve OpenTelemetry metrics in the Prometheus text format at `path` (default `/metrics`) of the agent's server. */
  metrics?: boolean | { path?: string };
}

/**
 * Starts the echo agent on node:http: a card signed with the agent's Ed25519 key (its AgentID and
 * webhook algorithm in the ruvector extension, the key published at `/.well-known/jwks.json`),
 * streaming, cancel, and push notifications signed with the same key.
 */
export async function startEchoAgent(options: StartEchoAgentOptions = {}): Promise<EchoAgent> {
  const key = options.key ?? generateKeyPair('EdDSA');
  const agentId = agentIdFromPublicKey(key.publicKey);
  const webhooks = options.webhooks ?? { allowLoopback: true };
  const http: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      http.off('error', reject);
      resolve();
    });
  });
  const { address, port, family } = http.address() as AddressInfo;
  const url = `http://${family === 'IPv6' ? `[${address}]` : address}:${port}`;
  const card = withAgentIdExtension(
    createAgentCard({
      baseUrl: url,
      name: 'Echo Agent',
      description: 'Streams your message back, word by word.',
      capabilities: { streaming: true, pushNotifications: true },
      skills: [{ id: 'echo', name: 'Echo', description: 'Echoes the input text.', tags: ['echo', 'example'] }],
    }),
    agentId,
    // No memory tier: the echo agent keeps nothing. Peers negotiate the typed-artifact version on discovery.
    { webhook_algos: ['ed25519'], artifact_kind_versions_supported: [...SUPPORTED_ARTIFACT_KIND_VERSIONS] },
  );
  const prometheus = options.metrics ? createPrometheusMetrics(options.metrics === true ? {} : options.metrics) : undefined;
  const instrumentation = prometheus
    ? createServerInstrumentation({ agentId, agentName: card.name, meterProvider: prometheus.meterProvider })
    : undefined;
  const onPushEvent = options.onPushEvent;
  const onEvent =
    instrumentation === undefined
      ? onPushEvent
      : (event: PushDeliveryEvent) => {
          instrumentation.onPushEvent(event);
          onPushEvent?.(event);
        };
  const server = createA2AServer({
    card,
    executor: createEchoExecutor({ wordDelayMs: options.wordDelayMs ?? 0 }),
    pushSender: createPushSender({
      signer: createEd25519WebhookSigner(key),
      ssrf: webhooks,
      ...(onEvent ? { onEvent } : {}),
    }),
    ...(instrumentation ? { instrumentation } : {}),
  });
  const handler = createNodeHttpHandler(server, {
    cardSigner: { sign: (c) => signAgentCard(c, key, { jku: `${url}${JWKS_PATH}` }) },
    jwks: createJwks([key]),
    jwksPath: JWKS_PATH,
  });
  http.on('request', (req, res) => {
    if (prometheus?.handle(req, res)) return;
    void handler(req, res);
  });
  return {
    url,
    agentId,
    key,
    server,
    ...(prometheus ? { metricsUrl: `${url}${prometheus.path}` } : {}),
    close: async () => {
      await server.close();
      await prometheus?.shutdown();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
