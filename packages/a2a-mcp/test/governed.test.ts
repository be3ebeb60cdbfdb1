import { createInMemoryBudgetLedger, Governor, parseTraceparent } from '@a2aplane/a2a-governance';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createGovernedMcpClient, McpToolRefusedError } from '../src/index.js';
import { startToolServer, type ToolServer } from './tool-server.js';

let tools: ToolServer;
let mcp: Client;
beforeAll(async () => {
  tools = await startToolServer();
  mcp = new Client({ name: 'executor', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(tools.url)));
});
afterAll(async () => {
  await mcp?.close();
  await tools?.close();
});
afterEach(() => {
  tools.calls.length = 0;
});

const admit = (maxUsdPerMinute: number) =>
  new Governor({ selfAgentId: 'agent-a', budget: createInMemoryBudgetLedger({ maxUsdPerMinute }) }).admit({ caller: 'c', skill: 'work' });

describe('MCP tools inside a governed task', () => {
  it('carries the task trace (traceparent) and lineage (ruvector.context) in the request _meta', async () => {
    const task = await admit(10);
    const governed = createGovernedMcpClient({ client: mcp, task });
    const result = await governed.callTool({ name: 'lookup', arguments: { q: 'x' } });
    expect(result.content).toEqual([{ type: 'text', text: 'found x' }]);
    const meta = tools.calls[0] as { traceparent: string; ruvector: { context: Record<string, unknown> } };
    expect(parseTraceparent(meta.traceparent)?.traceId).toBe(task.context.traceId);
    expect(meta.ruvector.context).toEqual({
      trace_id: task.context.traceId,
      depth: 0,
      root_agent_id: 'agent-a',
      visited_agents: ['agent-a'],
    });
    await task.finish({});
  });

  it('meters each call and refuses the third under a budget of two, before it is sent', async () => {
    const task = await admit(2);
    const governed = createGovernedMcpClient({ client: mcp, task, estimate: () => ({ usd: 1 }) });
    await governed.callTool({ name: 'lookup', arguments: { q: '1' } });
    await governed.callTool({ name: 'lookup', arguments: { q: '2' } });
    const third = governed.callTool({ name: 'lookup', arguments: { q: '3' } });
    await expect(third).rejects.toBeInstanceOf(McpToolRefusedError);
    await expect(third).rejects.toMatchObject({ reason: 'budget', tool: 'lookup', cause: { name: 'BudgetExceededError' } });
    expect(tools.calls).toHaveLength(2);
    await task.finish({});
  });

  it('refuses a call the operator policy refuses, and every call once the task is stopped', async () => {
    const controller = new AbortController();
    const task = await new Governor({ selfAgentId: 'agent-a' }).admit({ caller: 'c', skill: 'work', signal: controller.signal });
    const governed = createGovernedMcpClient({
      client: mcp,
      task,
      allow: (call) => (call.arguments?.q === 'secret' ? 'no secrets' : true),
    });
    await expect(governed.callTool({ name: 'lookup', arguments: { q: 'secret' } })).rejects.toMatchObject({
      reason: 'policy',
      message: 'lookup: refused by policy: no secrets',
    });
    controller.abort();
    await expect(governed.callTool({ name: 'lookup', arguments: { q: 'ok' } })).rejects.toMatchObject({ reason: 'aborted' });
    expect(tools.calls).toHaveLength(0);
    await task.finish({});
  });

  it('1,000 concurrent calls under a cap of 100: exactly 100 are sent, none escapes the budget', async () => {
    const task = await admit(100);
    const governed = createGovernedMcpClient({ client: mcp, task, estimate: () => ({ usd: 1 }) });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 1_000 }, (_, i) => governed.callTool({ name: 'lookup', arguments: { q: String(i) } })),
    );
    const sent = outcomes.filter((o) => o.status === 'fulfilled');
    const refused = outcomes.filter((o) => o.status === 'rejected');
    expect(sent).toHaveLength(100);
    expect(tools.calls).toHaveLength(100);
    for (const r of refused) expect((r as PromiseRejectedResult).reason).toMatchObject({ reason: 'budget' });
    await task.finish({});
  });
});

describe('usage the tool reports', () => {
  it('is metered into the task above the estimate', async () => {
    const reporting = await startToolServer({ reportUsd: 0.75 });
    const client = new Client({ name: 'executor', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(reporting.url)));
    try {
      const task = await admit(1);
      const governed = createGovernedMcpClient({ client, task, estimate: () => ({ usd: 0.25 }) });
      await governed.callTool({ name: 'lookup', arguments: { q: 'a' } });
      expect(governed.spent).toEqual({ usd: 0.75, tokens: 0 });
      // 0.75 of 1 spent: the next estimate (0.25) still fits, the reported 0.75 does not, so the third is refused.
      await governed.callTool({ name: 'lookup', arguments: { q: 'b' } });
      await expect(governed.callTool({ name: 'lookup', arguments: { q: 'c' } })).rejects.toMatchObject({ reason: 'budget' });
      expect(reporting.calls).toHaveLength(2);
      await task.finish({});
    } finally {
      await client.close();
      await reporting.close();
    }
  });
});
