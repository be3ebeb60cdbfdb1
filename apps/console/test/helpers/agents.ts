import { startOfficialAgent as startOfficialChildAgent } from '@a2aplane/test-utils';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGovernor, createTaskPolicyEngine } from '@a2aplane/a2a-governance';
import {
  type A2AServer,
  type AgentExecutor,
  createA2AServer,
  createAgentCard,
  createAuthenticator,
  createNodeHttpHandler,
  createTaskUpdater,
} from '@a2aplane/a2a-server-express';
import type { AgentCard } from '@a2aplane/a2a-types';

// The agents the console's tests talk to, each on 127.0.0.1 on a port of its own.

export interface TestAgent {
  url: string;
  close(): Promise<void>;
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

export async function listen(listener: Listener): Promise<{ url: string; server: Server }> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** Replies "echo: <text>" and completes. */
const replyExecutor: AgentExecutor = {
  async execute(context, events) {
    const task = createTaskUpdater(context, events);
    task.submit();
    const text = context.message.parts.map((part) => part.text ?? '').join(' ');
    task.addArtifact([{ text: `echo: ${text}` }], { name: 'reply' });
    task.complete();
  },
};

/** Our server with `card` built from its URL, the executor, and HTTP handler options. */
export async function startOurAgent(
  makeCard: (url: string) => AgentCard,
  server: (card: AgentCard) => A2AServer,
  handlerOptions: Parameters<typeof createNodeHttpHandler>[1] = {},
): Promise<TestAgent> {
  let handler: Listener = (_req, res) => res.writeHead(503).end();
  const http = await listen((req, res) => handler(req, res));
  const a2a = server(makeCard(http.url));
  handler = createNodeHttpHandler(a2a, handlerOptions);
  return {
    url: http.url,
    close: async () => {
      await a2a.close();
      await closeServer(http.server);
    },
  };
}

/** A governed agent: its policy admits the skill `echo` only; it lets `consoleOrigin` call it directly (CORS). */
export function startGovernedAgent(consoleOrigin: string): Promise<TestAgent> {
  return startOurAgent(
    (url) =>
      createAgentCard({
        baseUrl: url,
        name: 'Governed Agent',
        description: 'Admits the echo skill only.',
        skills: [{ id: 'echo', name: 'Echo', description: 'echo', tags: ['echo'] }],
      }),
    (card) =>
      createA2AServer({
        card,
        executor: replyExecutor,
        onError: false,
        governance: createGovernor({
          selfAgentId: 'governed-agent',
          policy: createTaskPolicyEngine({ default: { allowedSkills: ['echo'] } }),
        }),
      }),
    { cors: { origins: [consoleOrigin] } },
  );
}

/** A v0.3 agent: no v1.0 card, only the v0.3 one at `/.well-known/agent.json`, speaking v0.3 JSON-RPC. */
export function startV03Agent(): Promise<TestAgent> {
  return startOurAgent(
    (url) =>
      createAgentCard({
        baseUrl: url,
        name: 'Legacy Agent',
        description: 'Speaks A2A v0.3 only.',
        bindings: ['JSONRPC'],
        skills: [{ id: 'echo', name: 'Echo', description: 'echo', tags: ['echo'] }],
      }),
    (card) => createA2AServer({ card, executor: replyExecutor, onError: false }),
    { cardPath: '/.well-known/no-v1-card.json' },
  );
}

/** An agent that requires an API key in `X-API-Key` (declared in its card's securitySchemes). */
export function startApiKeyAgent(key: string, seen: string[]): Promise<TestAgent> {
  const securitySchemes = { apiKey: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } } };
  return startOurAgent(
    (url) =>
      createAgentCard({
        baseUrl: url,
        name: 'Keyed Agent',
        description: 'Needs an API key.',
        skills: [{ id: 'echo', name: 'Echo', description: 'echo', tags: ['echo'] }],
        securitySchemes,
        securityRequirements: [{ schemes: { apiKey: { list: [] } } }],
      }),
    (card) =>
      createA2AServer({
        card,
        executor: replyExecutor,
        onError: false,
        authenticate: createAuthenticator({
          securitySchemes,
          apiKey: {
            verify: (given) => {
              seen.push(given);
              return given === key ? { id: 'tester', scheme: 'apiKey' } : undefined;
            },
          },
        }),
      }),
  );
}

/** The official @a2a-js/sdk agent in a child process (`@a2aplane/test-utils`). */
export function startOfficialAgent(): Promise<TestAgent> {
  return startOfficialChildAgent();
}
