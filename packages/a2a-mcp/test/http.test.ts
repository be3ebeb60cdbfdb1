import { request } from 'node:http';
import { createTaskUpdater } from '@a2aplane/a2a-server-express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentMcpBridge, type McpHttpServer, serveMcpHttp } from '../src/index.js';
import { connectMcp, type RunningAgent, startAgent } from './helpers.js';

const initialize = (url: string, host?: string) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(host ? { host } : {}) },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });

describe('Streamable HTTP', () => {
  let agent: RunningAgent;
  let mcp: McpHttpServer;
  beforeAll(async () => {
    agent = await startAgent({
      async execute(context, events) {
        const task = createTaskUpdater(context, events);
        task.submit();
        task.fail('the index is offline');
      },
    });
    mcp = await serveMcpHttp(await createAgentMcpBridge({ agent: { baseUrl: agent.url } }), { maxSessions: 1, sessionIdleMs: 1_000 });
  });
  afterAll(async () => {
    await mcp?.close();
    await agent?.close();
  });

  it('refuses a request whose Host is not its own (DNS rebinding)', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL(mcp.url);
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { host: 'evil.example', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
        }),
      );
    });
    expect(status).toBe(403);
  });

  it('reports a failed task as a tool error with its status message', async () => {
    const client = await connectMcp(mcp.url);
    const result = await client.callTool({ name: 'ask', arguments: { text: 'x' } });
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: "The agent's task ended failed: the index is offline." }],
    });
    // One session is open: the cap refuses a second; a session left idle is closed, which frees its place.
    expect((await initialize(mcp.url)).status).toBe(503);
    await client.close();
    await expect.poll(async () => (await initialize(mcp.url)).status, { timeout: 10_000, interval: 200 }).toBe(200);
  });
});
