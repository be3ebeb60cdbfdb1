import { listenOnLoopback } from '@a2aplane/test-utils';
import { createServer } from 'node:http';
import { type A2AClient, createA2AClient } from '@a2aplane/a2a-client';
import { createJwks, generateKeyPair, signAgentCard } from '@a2aplane/a2a-identity';
import {
  type AgentExecutor,
  createA2AServer,
  createAgentCard,
  createNodeHttpHandler,
  createTaskUpdater,
  DEFAULT_JWKS_PATH,
} from '@a2aplane/a2a-server-express';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export interface RunningAgent {
  url: string;
  close(): Promise<void>;
}

/** One of our agents on 127.0.0.1:0 with the given executor and one skill. */
export async function startAgent(
  executor: AgentExecutor,
  options: {
    streaming?: boolean;
    skillId?: string;
    description?: string;
    signed?: boolean;
    server?: Omit<Parameters<typeof createA2AServer>[0], 'card' | 'executor'>;
  } = {},
): Promise<RunningAgent> {
  const http = createServer();
  const url = await listenOnLoopback(http);
  const card = createAgentCard({
    baseUrl: url,
    name: 'Test agent',
    description: 'an agent under test',
    capabilities: { streaming: options.streaming ?? true },
    skills: [{ id: options.skillId ?? 'ask', name: 'Skill', description: options.description ?? 'Asks back, then answers.', tags: [] }],
  });
  const server = createA2AServer({ ...options.server, card, executor });
  const key = options.signed ? generateKeyPair('EdDSA') : undefined;
  const handler = createNodeHttpHandler(server, {
    heartbeatMs: 0,
    ...(key
      ? {
          cardSigner: { sign: (c) => signAgentCard(c, key, { jku: `${url}${DEFAULT_JWKS_PATH}` }) },
          jwks: createJwks([key]),
          jwksPath: DEFAULT_JWKS_PATH,
        }
      : {}),
  });
  http.on('request', (req, res) => void handler(req, res));
  return {
    url,
    async close() {
      await server.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/** Streams the input back word by word as one artifact, `wordDelayMs` apart; stops when canceled. */
export function echoExecutor(wordDelayMs = 0): AgentExecutor {
  return {
    async execute(context, events) {
      const task = createTaskUpdater(context, events);
      task.submit();
      task.startWork('echoing');
      const words = (context.message.parts[0]?.text ?? '').split(/\s+/).filter(Boolean);
      for (let i = 0; i < words.length; i++) {
        await sleep(wordDelayMs, context.signal);
        if (context.signal.aborted) return;
        task.addArtifact([{ text: i === 0 ? (words[i] as string) : ` ${words[i]}` }], {
          artifactId: 'echo',
          append: i > 0,
          lastChunk: i === words.length - 1,
        });
      }
      task.complete();
    },
  };
}

/** Our echo agent: a signed card (its `jku` on the agent's loopback origin), streaming, cancel. */
export const startEchoAgent = (wordDelayMs = 0) =>
  startAgent(echoExecutor(wordDelayMs), { skillId: 'echo', description: 'Echoes the input text.', signed: true });

/** The official MCP SDK client over Streamable HTTP; `elicit` answers elicitation requests (and declares the capability). */
export async function connectMcp(url: string, elicit?: (message: string) => string | undefined): Promise<Client> {
  const client = new Client({ name: 'test-client', version: '1.0.0' }, { capabilities: elicit ? { elicitation: {} } : {} });
  if (elicit) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      const text = elicit(request.params.message);
      return text === undefined ? { action: 'decline' } : { action: 'accept', content: { text } };
    });
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** Our A2A client, recording the tasks its `cancelTask` calls returned. */
export function recordingClient(
  baseUrl: string,
  extra: { allowInsecureLoopback?: boolean } = {},
): { client: A2AClient; canceled: string[] } {
  const inner = createA2AClient({ baseUrl, ...extra });
  const canceled: string[] = [];
  const client = new Proxy(inner, {
    get(target, key) {
      if (key === 'cancelTask') {
        return async (...args: Parameters<A2AClient['cancelTask']>) => {
          const task = await target.cancelTask(...args);
          canceled.push(task.status.state);
          return task;
        };
      }
      const value = Reflect.get(target, key) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { client, canceled };
}
