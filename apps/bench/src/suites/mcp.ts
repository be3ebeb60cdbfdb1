import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createA2AClient } from '@a2aplane/a2a-client';
import { createAgentMcpBridge, serveMcpHttp } from '@a2aplane/a2a-mcp';
import { createA2AServer, createAgentCard, createNodeHttpHandler, createTaskUpdater } from '@a2aplane/a2a-server-express';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { median, num, passFail, ratio, table } from '../lib/format.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

// Issue 40's goal: an MCP tool call through the bridge costs at most 1.2x the same blocking
// SendMessage made directly with our client. One process, one local agent (non-streaming, so the
// bridge makes exactly that SendMessage); blocks of calls alternate between the two paths and the
// figure is the median of the per-block ratios of mean latency, so drift in machine load cancels.
const GOAL = 1.2;

async function startAgent(): Promise<{ url: string; close(): Promise<void> }> {
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const card = createAgentCard({
    baseUrl: url,
    name: 'Bench echo',
    description: 'answers at once',
    capabilities: { streaming: false },
    skills: [{ id: 'echo', name: 'Echo', description: 'echo', tags: [] }],
  });
  const server = createA2AServer({
    card,
    executor: {
      async execute(context, events) {
        const task = createTaskUpdater(context, events);
        task.addArtifact([{ text: context.message.parts[0]?.text ?? '' }], { artifactId: 'echo' });
        task.complete();
      },
    },
  });
  const handler = createNodeHttpHandler(server, { heartbeatMs: 0 });
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

/** The MCP SDK's own floor: the same Streamable HTTP serving, a tool that answers at once, no agent. */
async function startBareMcp() {
  const bare = {
    card: { name: 'bare', version: '1.0.0' },
    tools: [],
    createServer() {
      const server = new Server({ name: 'bare', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
      server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: 'text', text: 'hello' }] }));
      return server;
    },
  } as unknown as Awaited<ReturnType<typeof createAgentMcpBridge>>;
  return serveMcpHttp(bare);
}

async function timeBlock(calls: number, call: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) await call();
  return (performance.now() - t0) / calls;
}

export async function runMcp(options: RunOptions): Promise<SuiteResult> {
  const blocks = options.quick ? 6 : 20;
  const perBlock = options.quick ? 50 : 100;
  const agent = await startAgent();
  const client = createA2AClient({ baseUrl: agent.url });
  const bridge = await createAgentMcpBridge({ agent: createA2AClient({ baseUrl: agent.url }) });
  const mcp = await serveMcpHttp(bridge);
  const session = new Client({ name: 'bench', version: '1.0.0' });
  await session.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
  const bareMcp = await startBareMcp();
  const bareSession = new Client({ name: 'bench', version: '1.0.0' });
  await bareSession.connect(new StreamableHTTPClientTransport(new URL(bareMcp.url)));
  const bareCall = () => bareSession.callTool({ name: 'echo', arguments: { text: 'hello' } });
  const direct = () =>
    client.sendMessage({ message: { messageId: globalThis.crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'hello' }] } });
  const bridged = () => session.callTool({ name: 'echo', arguments: { text: 'hello' } });
  try {
    await timeBlock(perBlock, direct); // warm-up
    await timeBlock(perBlock, bridged);
    await timeBlock(perBlock, bareCall);
    const directMs: number[] = [];
    const bridgedMs: number[] = [];
    const bareMs: number[] = [];
    for (let b = 0; b < blocks; b++) {
      directMs.push(await timeBlock(perBlock, direct));
      bridgedMs.push(await timeBlock(perBlock, bridged));
      bareMs.push(await timeBlock(perBlock, bareCall));
    }
    const ratios = bridgedMs.map((ms, i) => ms / (directMs[i] as number));
    const overhead = median(ratios);
    const data = {
      blocks,
      perBlock,
      directMeanMs: median(directMs),
      bridgedMeanMs: median(bridgedMs),
      bareMcpMeanMs: median(bareMs),
      ratio: overhead,
      goal: GOAL,
    };
    const markdown = [
      table(
        ['path', 'mean latency per call (median of blocks)'],
        [
          ['SendMessage with our client', `${num(data.directMeanMs * 1000)} µs`],
          ['MCP tools/call to a tool that answers at once (the MCP SDK alone, no agent)', `${num(data.bareMcpMeanMs * 1000)} µs`],
          [
            'MCP tools/call through the bridge (MCP client → Streamable HTTP → bridge → the same SendMessage)',
            `${num(data.bridgedMeanMs * 1000)} µs`,
          ],
        ],
      ),
      '',
      `Bridge / direct: ${ratio(overhead)} (median of ${blocks} alternating blocks of ${perBlock} sequential calls); goal ≤ ${GOAL}x: ${passFail(overhead <= GOAL)}. The bridge's own share is roughly bridged − bare MCP − direct; the bare MCP hop over the SDK's Streamable HTTP transport is the floor of any bridge on that transport.`,
    ].join('\n');
    return { title: 'A2A agent as an MCP tool (a2a-mcp bridge overhead)', markdown, data };
  } finally {
    await session.close();
    await bareSession.close();
    await mcp.close();
    await bareMcp.close();
    await agent.close();
  }
}
