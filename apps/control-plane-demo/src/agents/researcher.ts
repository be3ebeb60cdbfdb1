import { createGovernedMcpClient, executorTask, type GovernedMcpClientOptions } from '@a2aplane/a2a-mcp';
import { type AgentExecutor, createTaskUpdater } from '@a2aplane/a2a-server-express';
import type { Tracer } from '@opentelemetry/api';

export interface ResearcherOptions {
  /** A connected MCP client session (the official SDK's `Client`), shared by the agent's tasks. */
  mcp: GovernedMcpClientOptions['client'];
  /** The MCP tool to call, once per item of the request. */
  tool: string;
  /** What the agent estimates a tool call costs; metered before the call is sent. */
  toolEstimateUsd: number;
  /** What each task costs the agent itself. */
  costUsd: number;
  /** Spans each MCP call under the task's run. */
  tracer?: Tracer;
}

/**
 * The agent of the MCP scenario: for each item of its request (a `data` part `{ items }`), calls an
 * MCP tool through a2a-mcp's governed client, so each call carries the task's trace and lineage,
 * is a span under the run, and its cost is metered into the task (refused once the budget is spent).
 */
export function createResearcherExecutor(options: ResearcherOptions): AgentExecutor {
  return {
    async execute(context, events) {
      const task = createTaskUpdater(context, events);
      task.submit();
      task.startWork('pricing the items with an MCP tool');
      const data = context.message.parts.find((part) => part.data !== undefined)?.data as { items?: unknown } | undefined;
      const items = Array.isArray(data?.items) ? data.items.filter((item): item is string => typeof item === 'string') : [];
      const tools = createGovernedMcpClient({
        client: options.mcp,
        task: executorTask(context, events),
        estimate: () => ({ usd: options.toolEstimateUsd }),
        ...(options.tracer ? { tracer: options.tracer } : {}),
      });
      const prices: string[] = [];
      for (const item of items) {
        const result = await tools.callTool({ name: options.tool, arguments: { item } });
        const text = result.content.find((block) => block.type === 'text');
        prices.push(text && 'text' in text ? text.text : `${item}: no price`);
      }
      events.reportUsage({ usd: options.costUsd });
      task.addArtifact([{ data: { prices, toolSpendUsd: tools.spent.usd } }], { artifactId: 'prices', name: 'prices', lastChunk: true });
      task.complete();
    },
  };
}
