import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAgentMcpBridge, serveMcpStdio } from '../src/index.js';
import { echoExecutor, type RunningAgent, startAgent } from './helpers.js';

let agent: RunningAgent;
beforeAll(async () => {
  agent = await startAgent(echoExecutor(), { skillId: 'echo', streaming: false });
});
afterAll(() => agent?.close());

it('serves the bridge over stdio (newline-delimited JSON-RPC) and calls a non-streaming agent with unary calls', async () => {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const served = await serveMcpStdio(await createAgentMcpBridge({ agent: { baseUrl: agent.url } }), { stdin: toServer, stdout: toClient });
  // The client end of a stdio pipe is the same newline-delimited JSON transport, reading the server's stdout.
  const client = new Client({ name: 'stdio-test', version: '1.0.0' });
  await client.connect(new StdioServerTransport(toClient, toServer));
  expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
  const result = await client.callTool({ name: 'echo', arguments: { text: 'over stdio' } });
  expect(result.content).toEqual([{ type: 'text', text: 'over stdio' }]);
  await client.close();
  await served.close();
});
