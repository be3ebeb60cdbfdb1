// Serve an agent: a card, JSON-RPC and REST on node:http, an executor that answers in capitals.
// Run: pnpm --filter examples example src/serve-agent.ts   (Ctrl-C to stop)
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import {
  type A2AServer,
  createA2AServer,
  createAgentCard,
  createNodeHttpHandler,
  createTaskUpdater,
  type NodeHttpHandlerOptions,
} from '@a2aplane/a2a-server-express';
import type { AgentCard } from '@a2aplane/a2a-types';

export interface RunningAgent {
  url: string;
  server: A2AServer;
  close(): Promise<void>;
}

/** Starts the shouting agent on 127.0.0.1 (port 0 picks a free one). */
export async function startShouter(
  options: {
    port?: number;
    card?: (baseUrl: string) => AgentCard;
    http?: NodeHttpHandlerOptions;
    server?: Partial<Parameters<typeof createA2AServer>[0]>;
  } = {},
): Promise<RunningAgent> {
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(options.port ?? 0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const card =
    options.card?.(url) ??
    createAgentCard({
      baseUrl: url,
      name: 'Shouter',
      description: 'Answers in capitals.',
      skills: [{ id: 'shout', name: 'Shout', description: 'Upper-cases text.', tags: ['example'] }],
    });
  const server = createA2AServer({
    card,
    executor: {
      async execute(context, events) {
        const task = createTaskUpdater(context, events);
        task.submit();
        task.startWork();
        for (const word of context.message.parts
          .map((p) => p.text ?? '')
          .join(' ')
          .split(/\s+/)
          .filter(Boolean)) {
          task.addArtifact([{ text: `${word.toUpperCase()} ` }], { artifactId: 'shout', append: true });
        }
        task.complete();
      },
    },
    ...options.server,
  });
  http.on('request', createNodeHttpHandler(server, options.http));
  return {
    url,
    server,
    async close() {
      await server.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const agent = await startShouter({ port: Number(process.env.PORT ?? 4000) });
  console.log(`serving ${agent.url} (card: ${agent.url}/.well-known/agent-card.json)`);
  process.once('SIGINT', () => void agent.close());
}
