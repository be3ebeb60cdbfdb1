// A2A and MCP together (docs/mcp.md), both directions:
// 1. an A2A agent as MCP tools: the shouter's card becomes one MCP tool per skill, served over
//    Streamable HTTP; the official MCP SDK client lists and calls it;
// 2. an MCP tool inside a governed task: each call carries the task's trace, is metered against its
//    budget (1 USD a call, 2 USD a minute) and the third is refused before it is sent.
// Run: pnpm --filter examples example src/mcp.ts
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { createInMemoryBudgetLedger, Governor } from '@a2aplane/a2a-governance';
import { createAgentMcpBridge, createGovernedMcpClient, McpToolRefusedError, serveMcpHttp } from '@a2aplane/a2a-mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import * as z from 'zod';
import { startShouter } from './serve-agent.js';

/** Direction 1: the agent's skills as MCP tools. Returns the tool names and one call's text. */
export async function agentAsMcpTools(): Promise<{ tools: string[]; answer: string }> {
  const agent = await startShouter();
  // Our A2A client underneath: card verification, signing, auth and timeouts are its options.
  const bridge = await createAgentMcpBridge({ agent: { baseUrl: agent.url } });
  const mcp = await serveMcpHttp(bridge); // http://127.0.0.1:<port>/mcp
  const client = new Client({ name: 'example', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
    const { tools } = await client.listTools();
    const result = await client.callTool({ name: 'shout', arguments: { text: 'hello mcp' } });
    const answer = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');
    return { tools: tools.map((t) => t.name), answer };
  } finally {
    await client.close();
    await mcp.close();
    await agent.close();
  }
}

/** A small MCP server with one tool, `lookup` (stateless Streamable HTTP on 127.0.0.1). */
async function startLookupServer(): Promise<{ url: string; close(): Promise<void> }> {
  const http = createServer(async (req, res) => {
    const server = new McpServer({ name: 'lookup', version: '1.0.0' });
    server.registerTool('lookup', { description: 'Looks a word up.', inputSchema: { q: z.string() } }, async ({ q }) => ({
      content: [{ type: 'text', text: `found ${q}` }],
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void server.close());
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}

/** Direction 2: MCP tool calls under a governed task's budget. Returns one line per call. */
export async function mcpToolsInAGovernedTask(): Promise<string[]> {
  const lookup = await startLookupServer();
  const client = new Client({ name: 'executor', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(lookup.url)));
  const governor = new Governor({ selfAgentId: 'planner', budget: createInMemoryBudgetLedger({ maxUsdPerMinute: 2 }) });
  const task = await governor.admit({ caller: 'user-1', skill: 'plan' });
  const tools = createGovernedMcpClient({ client, task, estimate: () => ({ usd: 1 }) });
  const lines: string[] = [];
  try {
    for (const q of ['a', 'b', 'c']) {
      try {
        const result = await tools.callTool({ name: 'lookup', arguments: { q } });
        lines.push((result.content as { text: string }[])[0]?.text ?? '');
      } catch (error) {
        if (!(error instanceof McpToolRefusedError)) throw error;
        lines.push(`${q}: refused (${error.reason})`);
      }
    }
    return lines;
  } finally {
    await task.finish({});
    await client.close();
    await lookup.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(await agentAsMcpTools());
  for (const line of await mcpToolsInAGovernedTask()) console.log(line);
}
