import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTaskUpdater } from '@a2aplane/a2a-server-express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentMcpBridge, createMcpHttpHandler, type McpHttpServer, serveMcpHttp } from '../src/index.js';
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

describe('Streamable HTTP: the endpoint path and the idle timer', () => {
  let agent: RunningAgent;
  beforeAll(async () => {
    agent = await startAgent({
      async execute(context, events) {
        createTaskUpdater(context, events).complete('ok');
      },
    });
  });
  afterAll(() => agent?.close());

  it('serves its path with any query; another path, a trailing slash or an encoded spelling is not found', async () => {
    const mcp = await serveMcpHttp(await createAgentMcpBridge({ agent: { baseUrl: agent.url } }));
    try {
      const { origin } = new URL(mcp.url);
      const status = async (path: string) => {
        const response = await initialize(`${origin}${path}`);
        await response.body?.cancel();
        return response.status;
      };
      expect(await status('/mcp?via=query')).toBe(200);
      expect(await status('/mcp')).toBe(200);
      for (const path of ['/mcp/', '/other', '/%6Dcp']) expect(await status(path), path).toBe(404);
    } finally {
      await mcp.close();
    }
  });

  it('counts its sessions; one in use stays open past the idle time; once its client left, it is closed after the idle time', async () => {
    const idleMs = 1_500;
    const handler = createMcpHttpHandler(await createAgentMcpBridge({ agent: { baseUrl: agent.url } }), { sessionIdleMs: idleMs });
    const http = createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const client = await connectMcp(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
    try {
      // Calls spaced well inside the idle time, spanning more than it in all: the session lives on.
      for (let i = 0; i < 4; i++) {
        expect(await client.callTool({ name: 'ask', arguments: { text: `call ${i}` } })).not.toHaveProperty('isError', true);
        await new Promise((resolve) => setTimeout(resolve, idleMs / 3));
      }
      expect(handler.sessions).toBe(1);
      // The client leaves without DELETE (its event stream closes): nothing is in flight any more.
      await client.close();
      await expect.poll(() => handler.sessions, { timeout: 10_000, interval: 100 }).toBe(0);
    } finally {
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  });
});
