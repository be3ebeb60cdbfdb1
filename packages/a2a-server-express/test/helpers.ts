export { createGate, userMessage } from '@a2aplane/test-utils';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentCard } from '@a2aplane/a2a-types';
import {
  type A2AServer,
  type A2AServerOptions,
  type AgentExecutor,
  createA2AServer,
  createAgentCard,
  createNodeHttpHandler,
  createTaskUpdater,
  createWebhookUrlGuard,
  type NodeHttpHandlerOptions,
} from '../src/index.js';

export interface TestServer {
  url: string;
  server: A2AServer;
  http: Server;
  close(): Promise<void>;
}

export function testCard(overrides: Partial<AgentCard> = {}): AgentCard {
  return {
    ...createAgentCard({
      baseUrl: 'http://127.0.0.1',
      name: 'test agent',
      description: 'echoes',
      skills: [{ id: 'echo', name: 'Echo', description: 'echo', tags: [] }],
      capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
    }),
    ...overrides,
  };
}

export async function startServer(
  options: Partial<A2AServerOptions> & { executor: AgentExecutor },
  http: NodeHttpHandlerOptions = {},
): Promise<TestServer> {
  const server = createA2AServer({ card: testCard(), ...options });
  const httpServer = createServer(createNodeHttpHandler(server, http));
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    http: httpServer,
    async close() {
      await server.close();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

export const V1 = { 'A2A-Version': '1.0' };

let nextId = 0;
export async function rpc(
  url: string,
  method: string,
  params: unknown,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const response = await fetch(`${url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...V1, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++nextId, method, params }),
    ...(signal ? { signal } : {}),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, headers: response.headers };
}

export async function rest(
  url: string,
  verb: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const response = await fetch(`${url}/a2a/rest${path}`, {
    method: verb,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...V1, ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, headers: response.headers };
}

export interface SseEvent {
  id: string | undefined;
  data: Record<string, unknown>;
}

/** Reads a whole SSE response (bounded by `max` events). */
export async function readSse(response: Response, max = 1000): Promise<{ events: SseEvent[]; comments: string[] }> {
  const text = await response.text();
  const events: SseEvent[] = [];
  const comments: string[] = [];
  for (const block of text.split('\n\n')) {
    if (events.length >= max) break;
    let id: string | undefined;
    let data: string | undefined;
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) comments.push(line.slice(1).trim());
      else if (line.startsWith('id: ')) id = line.slice(4);
      else if (line.startsWith('data: ')) data = line.slice(6);
    }
    if (data !== undefined) events.push({ id, data: JSON.parse(data) as Record<string, unknown> });
  }
  return { events, comments };
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

/** A webhook URL guard whose DNS answers every host with one public address (tests must not depend on real DNS). */
export const publicDnsWebhookGuard = createWebhookUrlGuard({ resolve: async () => ['93.184.216.34'] });
