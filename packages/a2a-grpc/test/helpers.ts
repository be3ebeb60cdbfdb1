export { createGate, userMessage } from '@a2aplane/test-utils';
import { listenOnLoopback } from '@a2aplane/test-utils';
import { createServer } from 'node:http';
import {
  type A2AServer,
  type A2AServerOptions,
  type AgentExecutor,
  createA2AServer,
  createAgentCard,
  createNodeHttpHandler,
  createTaskUpdater,
  createWebhookUrlGuard,
} from '@a2aplane/a2a-server-express';
import { type A2AClient, type A2AValidator, type AuthProvider, createA2AClient } from '@a2aplane/a2a-client';
import type { AgentCard } from '@a2aplane/a2a-types';
import { type ChannelCredentials, credentials, ServerCredentials } from '@grpc/grpc-js';
import { createGrpcTransportFactory, GrpcTransport, grpcInterface } from '../src/client/index.js';
import type { A2AGrpcListener } from '../src/listen.js';
import { bindA2AGrpc, withGrpcInterface } from '../src/server/index.js';

/** `createA2AClient` over the gRPC transport (the one gRPC client path), and a transport of its own for the tests that drive one. */
export interface GrpcTestClient extends A2AClient {
  transport: GrpcTransport;
  close(): void;
}

/**
 * A client of the agent at `target` through `createA2AClient` with the GRPC transport, no retries and
 * no stream resume (so a failure reaches the test as the transport reported it).
 */
export function grpcClient(options: {
  target: string;
  credentials: ChannelCredentials;
  auth?: AuthProvider;
  validator?: A2AValidator;
}): GrpcTestClient {
  const factory = createGrpcTransportFactory({ credentials: options.credentials });
  const card: AgentCard = {
    ...baseCard(),
    supportedInterfaces: [grpcInterface(options.target)],
  };
  const client = createA2AClient({
    card,
    transports: { GRPC: factory },
    retry: { retries: 0 },
    resume: { maxAttempts: 0 },
    ...(options.auth ? { auth: options.auth } : {}),
    ...(options.validator ? { validator: options.validator } : {}),
  });
  const transport = new GrpcTransport({ target: options.target, credentials: options.credentials, auth: options.auth });
  return {
    ...client,
    transport,
    close() {
      factory.close();
      transport.close();
    },
  };
}

/** A webhook URL guard whose DNS answers every host with one public address. */
const publicDnsWebhookGuard = createWebhookUrlGuard({ resolve: async () => ['93.184.216.34'] });

export interface TestAgent {
  core: A2AServer;
  grpc: A2AGrpcListener;
  /** Base URL of the JSON-RPC and REST bindings of the same core. */
  httpUrl: string;
  card: AgentCard;
  client(): GrpcTestClient;
  close(): Promise<void>;
}

export function baseCard(overrides: Partial<AgentCard> = {}): AgentCard {
  return {
    ...createAgentCard({
      baseUrl: 'http://127.0.0.1',
      name: 'grpc test agent',
      description: 'echoes',
      skills: [{ id: 'echo', name: 'Echo', description: 'echo', tags: [] }],
      capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
    }),
    ...overrides,
  };
}

/** One server core, served over gRPC and over JSON-RPC + REST (node:http), all on 127.0.0.1 port 0. */
export async function startAgent(options: Partial<A2AServerOptions> & { executor: AgentExecutor }): Promise<TestAgent> {
  const http = createServer();
  const httpUrl = await listenOnLoopback(http);
  const initial = options.card ?? baseCard();
  // The card names the gRPC port: bind first, serve once the core exists.
  const grpc = await bindA2AGrpc({ port: 0, credentials: ServerCredentials.createInsecure() });
  const card = withGrpcInterface(
    { ...initial, supportedInterfaces: createAgentCard({ baseUrl: httpUrl, name: 'x', description: 'x', skills: [] }).supportedInterfaces },
    grpc.target,
  );
  // Push config URLs are vetted by default; these tests' hooks.example.com must not need real DNS.
  const core = createA2AServer({ checkWebhookUrl: publicDnsWebhookGuard, ...options, card });
  grpc.serve(core);
  http.on('request', createNodeHttpHandler(core));
  const clients: GrpcTestClient[] = [];
  return {
    core,
    grpc,
    httpUrl,
    card,
    client() {
      const client = grpcClient({ target: grpc.target, credentials: credentials.createInsecure() });
      clients.push(client);
      return client;
    },
    async close() {
      for (const client of clients) client.close();
      await grpc.close(100);
      await core.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** submit -> working -> artifact -> completed. */
export const echoExecutor: AgentExecutor = {
  async execute(context, events) {
    const task = createTaskUpdater(context, events);
    task.submit();
    task.startWork();
    const text = context.message.parts.map((p) => ('text' in p ? p.text : '')).join('');
    task.addArtifact([{ text: `echo: ${text}` }], { artifactId: 'out', lastChunk: true });
    task.complete('done');
  },
};

/** Works until `gate` opens (or the task's signal aborts), then completes. */
export function gatedExecutor(gate: { wait: Promise<void> }): AgentExecutor {
  return {
    async execute(context, events) {
      const task = createTaskUpdater(context, events);
      task.submit();
      task.startWork();
      await Promise.race([gate.wait, new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true }))]);
      if (context.signal.aborted) return;
      task.addArtifact([{ text: 'late' }], { artifactId: 'out', lastChunk: true });
      task.complete('done');
    },
  };
}

export async function collect<T>(items: AsyncIterable<T>, max = 100): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) {
    out.push(item);
    if (out.length >= max) break;
  }
  return out;
}

/** Polls until `check` holds (bounded). */
export async function eventually(check: () => boolean, timeoutMs = 2000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
