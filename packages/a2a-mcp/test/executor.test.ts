import { createA2AClient } from '@a2aplane/a2a-client';
import { createInMemoryBudgetLedger, Governor } from '@a2aplane/a2a-governance';
import { createTaskUpdater } from '@a2aplane/a2a-server-express';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createGovernedMcpClient, executorTask, McpToolRefusedError } from '../src/index.js';
import { type RunningAgent, startAgent } from './helpers.js';
import { startToolServer, type ToolServer } from './tool-server.js';

let tools: ToolServer;
let mcp: Client;
let agent: RunningAgent;
const outcomes: string[] = [];

beforeAll(async () => {
  tools = await startToolServer();
  mcp = new Client({ name: 'executor', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(tools.url)));
  agent = await startAgent(
    {
      async execute(ctx, events) {
        createTaskUpdater(ctx, events).submit();
        const governed = createGovernedMcpClient({ client: mcp, task: executorTask(ctx, events), estimate: () => ({ usd: 0.6 }) });
        for (const q of ['a', 'b']) {
          try {
            await governed.callTool({ name: 'lookup', arguments: { q } });
            outcomes.push(`${q}: sent`);
          } catch (error) {
            outcomes.push(`${q}: ${error instanceof McpToolRefusedError ? error.reason : 'other'}`);
          }
        }
      },
    },
    { server: { governance: new Governor({ selfAgentId: 'agent-a', budget: createInMemoryBudgetLedger({ maxUsdPerMinute: 1 }) }) } },
  );
});
afterAll(async () => {
  await agent?.close();
  await mcp?.close();
  await tools?.close();
});

it('in a server executor, a call past the budget is refused and the server ends the task', async () => {
  const client = createA2AClient({ baseUrl: agent.url });
  const sent = await client.sendMessage({ message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'go' }] } });
  await expect.poll(() => outcomes.length).toBe(2);
  expect(outcomes).toEqual(['a: sent', 'b: budget']);
  expect(tools.calls).toHaveLength(1);
  const task = await client.getTask({ id: sent.task?.id as string });
  expect(task.status.state).toBe('TASK_STATE_FAILED');
});
