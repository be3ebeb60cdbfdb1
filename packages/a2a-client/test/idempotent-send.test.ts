import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type A2AServer,
  type AgentExecutor,
  createA2AServer,
  createAgentCard,
  createNodeHttpHandler,
  createTaskUpdater,
} from '@a2aplane/a2a-server-express';
import { afterEach, describe, expect, it } from 'vitest';
import { createA2AClient } from '../src/index.js';

/**
 * Our server behind a proxy that forwards every request but loses the reply of the first
 * `dropJsonRpc` JSON-RPC calls: the server ran them, the client sees a 503.
 */
async function lossyAgent(dropJsonRpc: number) {
  let runs = 0;
  const executor: AgentExecutor = {
    async execute(context, events) {
      runs++;
      const task = createTaskUpdater(context, events);
      task.submit();
      task.addArtifact([{ text: 'done' }], { artifactId: 'out' });
      task.complete();
    },
  };
  const inner = createServer();
  await new Promise<void>((resolve) => inner.listen(0, '127.0.0.1', resolve));
  const innerUrl = `http://127.0.0.1:${(inner.address() as AddressInfo).port}`;
  let dropped = 0;
  const proxy: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string' && name !== 'host') headers[name] = value;
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      const upstream = await fetch(`${innerUrl}${req.url}`, { method: req.method ?? 'GET', headers, ...(body ? { body } : {}) });
      const text = await upstream.text();
      if (req.url?.includes('jsonrpc') && dropped < dropJsonRpc) {
        dropped++;
        res.writeHead(503, { 'Content-Type': 'text/plain' });
        res.end('upstream reply lost');
        return;
      }
      res.writeHead(upstream.status, { 'Content-Type': upstream.headers.get('content-type') ?? 'application/json' });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const card = createAgentCard({
    baseUrl: url,
    name: 'lossy',
    description: 'echo behind a lossy proxy',
    skills: [{ id: 'echo', name: 'Echo', description: 'echo', tags: [] }],
    capabilities: { streaming: true },
  });
  const server: A2AServer = createA2AServer({ card, executor });
  inner.on('request', createNodeHttpHandler(server, { heartbeatMs: 0 }));
  return {
    card,
    server,
    get runs() {
      return runs;
    },
    get dropped() {
      return dropped;
    },
    async close() {
      await server.close();
      for (const s of [proxy, inner]) {
        s.closeAllConnections();
        await new Promise<void>((resolve) => s.close(() => resolve()));
      }
    },
  };
}

const agents: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.close()));
});

const message = { message: { messageId: 'm-lost-reply', role: 'ROLE_USER' as const, parts: [{ text: 'hello' }] } };

async function tasksOn(server: A2AServer): Promise<number> {
  const listed = await server.handle({ method: 'ListTasks', params: {}, version: '1.0' });
  return (listed as { result: { totalSize: number } }).result.totalSize;
}

describe('a lost SendMessage reply makes one task (the server deduplicates by messageId)', () => {
  it("the client's own 5xx retry gets the task the first attempt created", async () => {
    const agent = await lossyAgent(1);
    agents.push(agent);
    const client = createA2AClient({ card: agent.card, retry: { initialDelayMs: 5, maxDelayMs: 20 } });
    const result = await client.sendMessage(message);
    expect(agent.dropped).toBe(1);
    expect(result.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(agent.runs).toBe(1);
    expect(await tasksOn(agent.server)).toBe(1);
  });

  it('falling back from JSON-RPC to REST with the same messageId gets the same task', async () => {
    const agent = await lossyAgent(2);
    agents.push(agent);
    const client = createA2AClient({ card: agent.card, retry: { retries: 1, initialDelayMs: 5, maxDelayMs: 20 } });
    const result = await client.sendMessage(message);
    expect(agent.dropped).toBe(2);
    expect(result.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(agent.runs).toBe(1);
    expect(await tasksOn(agent.server)).toBe(1);
  });
});
