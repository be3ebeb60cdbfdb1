import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type BudgetLedger, createInMemoryBudgetLedger, Governor, RecursionPolicy } from '@a2aplane/a2a-governance';
import {
  type A2AServer,
  type AgentExecutor,
  createA2AServer,
  createAgentCard,
  createNodeHttpHandler,
  type ServerInstrumentation,
} from '@a2aplane/a2a-server-express';
import type { GovernanceHooks } from '@a2aplane/a2a-governance';
import type { AgentCard } from '@a2aplane/a2a-types';

export interface TestAgent {
  url: string;
  card: AgentCard;
  server: A2AServer;
  /** Headers of every request the agent received. */
  headers: Record<string, string | undefined>[];
  close(): Promise<void>;
}

/** One governed agent on 127.0.0.1 (ephemeral port); `extra` answers other paths (a scrape endpoint). */
export async function startAgent(options: {
  agentId: string;
  executor: AgentExecutor;
  instrumentation?: ServerInstrumentation & { governanceHooks?: GovernanceHooks };
  budget?: BudgetLedger;
  /** What the governor reserves against the budget for each task (USD). */
  estimatedCostUsd?: number;
  extra?: (req: IncomingMessage, res: ServerResponse) => boolean;
}): Promise<TestAgent> {
  const headers: Record<string, string | undefined>[] = [];
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const http = createServer((req, res) => {
    if (options.extra?.(req, res)) return;
    headers.push({ ...req.headers } as Record<string, string | undefined>);
    handler?.(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const card = createAgentCard({
    baseUrl: url,
    name: options.agentId,
    description: 'test agent',
    skills: [{ id: 'work', name: 'Work', description: 'work', tags: [] }],
    capabilities: { streaming: true },
  });
  const hooks = options.instrumentation?.governanceHooks;
  const governor = new Governor({
    selfAgentId: options.agentId,
    budget: options.budget ?? createInMemoryBudgetLedger({ maxTasksPerMinute: 1000, maxUsdPerMinute: 10 }),
    allowUnestimatedUsd: true,
    ...(options.estimatedCostUsd === undefined ? {} : { estimateCost: () => options.estimatedCostUsd }),
    recursion: new RecursionPolicy(),
    ...(hooks ? { hooks } : {}),
  });
  const server = createA2AServer({
    card,
    executor: options.executor,
    governance: governor,
    ...(options.instrumentation ? { instrumentation: options.instrumentation } : {}),
  });
  handler = createNodeHttpHandler(server, { heartbeatMs: 0 });
  return {
    url,
    card,
    server,
    headers,
    async close() {
      await server.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

export async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

export const userMessage = (text: string) => ({
  message: { messageId: globalThis.crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }] },
});
