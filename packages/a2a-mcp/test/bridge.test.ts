import { createTaskUpdater } from '@a2aplane/a2a-server-express';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentMcpBridge, type McpHttpServer, serveMcpHttp } from '../src/index.js';
import { startOfficialAgent } from '@a2aplane/test-utils';
import { connectMcp, echoExecutor, recordingClient, type RunningAgent, startAgent, startEchoAgent } from './helpers.js';

const textOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');

describe('our echo agent (signed card) as MCP tools over Streamable HTTP', () => {
  let agent: RunningAgent;
  let mcp: McpHttpServer;
  let canceled: string[];
  let client: Client;
  beforeAll(async () => {
    agent = await startEchoAgent(20);
    const recorded = recordingClient(agent.url, { allowInsecureLoopback: true });
    canceled = recorded.canceled;
    const bridge = await createAgentMcpBridge({ agent: recorded.client });
    expect(bridge.card.signatures?.length).toBe(1);
    mcp = await serveMcpHttp(bridge);
    client = await connectMcp(mcp.url);
  });
  afterAll(async () => {
    await client?.close();
    await mcp?.close();
    await agent?.close();
  });

  it('lists one tool per skill with the skill description and the default input schema', async () => {
    const { tools } = await client.listTools();
    expect(tools).toEqual([
      expect.objectContaining({
        name: 'echo',
        description: 'Echoes the input text.',
        inputSchema: expect.objectContaining({ type: 'object' }),
      }),
    ]);
  });

  it('calls the skill over a stream, reports progress, and returns the streamed artifact as one text', async () => {
    const progress: number[] = [];
    const result = await client.callTool({ name: 'echo', arguments: { text: 'one two three' } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('one two three');
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
  });

  it('cancels the A2A task when the MCP call is canceled', async () => {
    const controller = new AbortController();
    const words = Array.from({ length: 200 }, (_, i) => `w${i}`).join(' ');
    const call = client.callTool({ name: 'echo', arguments: { text: words } }, undefined, {
      signal: controller.signal,
      onprogress: () => controller.abort(),
    });
    await expect(call).rejects.toThrow();
    await expect.poll(() => canceled).toEqual(['TASK_STATE_CANCELED']);
  });

  it('refuses an unknown tool and a call without input', async () => {
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toThrow(/Unknown tool/);
    const empty = await client.callTool({ name: 'echo', arguments: {} });
    expect(empty.isError).toBe(true);
    expect(textOf(empty)).toMatch(/needs input/);
  });
});

describe('a bridge refuses an agent whose signed card it cannot verify', () => {
  it('fails closed before any tool exists (the jku is loopback http without the flag)', async () => {
    const agent = await startEchoAgent();
    try {
      await expect(createAgentMcpBridge({ agent: { baseUrl: agent.url } })).rejects.toMatchObject({ name: 'CardSignatureInvalidError' });
    } finally {
      await agent.close();
    }
  });
});

describe('input-required', () => {
  let agent: RunningAgent;
  let mcp: McpHttpServer;
  beforeAll(async () => {
    agent = await startAgent({
      async execute(context, events) {
        const task = createTaskUpdater(context, events);
        const answer = context.message.parts[0]?.text ?? '';
        if (!context.task) {
          task.submit();
          task.requireInput('What is your name?');
          return;
        }
        task.addArtifact([{ text: `hello ${answer}` }], { artifactId: 'greeting' });
        task.complete();
      },
    });
    mcp = await serveMcpHttp(await createAgentMcpBridge({ agent: { baseUrl: agent.url } }));
  });
  afterAll(async () => {
    await mcp?.close();
    await agent?.close();
  });

  it('becomes an MCP elicitation when the client supports it, and the answer continues the task', async () => {
    const asked: string[] = [];
    const client = await connectMcp(mcp.url, (message) => {
      asked.push(message);
      return 'Ada';
    });
    const result = await client.callTool({ name: 'ask', arguments: { text: 'greet me' } });
    await client.close();
    expect(asked).toEqual(['What is your name?']);
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('hello Ada');
  });

  it('is a clear tool error when the client cannot elicit', async () => {
    const client = await connectMcp(mcp.url);
    const result = await client.callTool({ name: 'ask', arguments: { text: 'greet me' } });
    await client.close();
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('The agent needs more input and this MCP client does not support elicitation: What is your name?');
  });

  it('is a tool error when the user declines', async () => {
    const client = await connectMcp(mcp.url, () => undefined);
    const result = await client.callTool({ name: 'ask', arguments: { text: 'greet me' } });
    await client.close();
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/declined/);
  });
});

describe('a non-streaming agent of ours as MCP tools (unary calls)', () => {
  let agent: RunningAgent;
  let mcp: McpHttpServer;
  let canceled: string[];
  let client: Client;
  beforeAll(async () => {
    agent = await startAgent(echoExecutor(20), { skillId: 'echo', streaming: false });
    const recorded = recordingClient(agent.url);
    canceled = recorded.canceled;
    mcp = await serveMcpHttp(await createAgentMcpBridge({ agent: recorded.client }));
    client = await connectMcp(mcp.url);
  });
  afterAll(async () => {
    await client?.close();
    await mcp?.close();
    await agent?.close();
  });

  it('calls the skill with SendMessage then GetTask and returns the artifact', async () => {
    const result = await client.callTool({ name: 'echo', arguments: { text: 'one two three' } });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('one two three');
  });

  it('cancels the A2A task when the MCP call is canceled while the agent works (the task id is known at once)', async () => {
    const controller = new AbortController();
    const words = Array.from({ length: 200 }, (_, i) => `w${i}`).join(' ');
    const call = client.callTool({ name: 'echo', arguments: { text: words } }, undefined, {
      signal: controller.signal,
      onprogress: () => controller.abort(),
    });
    await expect(call).rejects.toThrow();
    await expect.poll(() => canceled).toEqual(['TASK_STATE_CANCELED']);
  });
});

describe('an official @a2a-js/sdk agent as MCP tools', () => {
  let official: { url: string; close(): Promise<void> };
  let mcp: McpHttpServer;
  let canceled: string[];
  let client: Client;
  beforeAll(async () => {
    official = await startOfficialAgent();
    const recorded = recordingClient(official.url);
    canceled = recorded.canceled;
    mcp = await serveMcpHttp(await createAgentMcpBridge({ agent: recorded.client }));
    client = await connectMcp(mcp.url);
  });
  afterAll(async () => {
    await client?.close();
    await mcp?.close();
    await official?.close();
  });

  it('lists and calls its skill over a stream', async () => {
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
    const progress: number[] = [];
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
    });
    expect(textOf(result)).toBe('echo: hi');
    expect(progress.length).toBeGreaterThan(0);
  });

  it('cancels its task when the MCP call is canceled', async () => {
    const controller = new AbortController();
    const call = client.callTool({ name: 'echo', arguments: { text: 'hold' } }, undefined, {
      signal: controller.signal,
      onprogress: () => controller.abort(),
    });
    await expect(call).rejects.toThrow();
    await expect.poll(() => canceled).toEqual(['TASK_STATE_CANCELED']);
  });
});
