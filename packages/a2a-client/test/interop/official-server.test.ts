import { type RunningChildAgent, startOfficialAgent } from '@a2aplane/test-utils';
import type { StreamResponse } from '@a2aplane/a2a-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type A2AClient, createA2AClient } from '../../src/index.js';
import { v0_3 } from '../../src/v0_3.js';

// The official @a2a-js/sdk server (DefaultRequestHandler + InMemoryTaskStore + the express
// jsonRpcHandler/restHandler/agentCardHandler) runs in a child Node process on 127.0.0.1:0.
let official: RunningChildAgent;
let url: string;

beforeAll(async () => {
  official = await startOfficialAgent();
  url = official.url;
});

afterAll(() => official?.close());

const message = (text: string) => ({
  message: { messageId: globalThis.crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }] },
});

const stateOf = (event: StreamResponse | undefined) => event?.statusUpdate?.status.state ?? event?.task?.status.state;

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('interop with the official @a2a-js/sdk 1.3.0 server over %s', (binding) => {
  let client: A2AClient;
  beforeAll(() => {
    client = createA2AClient({ baseUrl: url, preferredBindings: [binding] });
  });

  it('discovers the card and sends a message', async () => {
    expect((await client.getCard()).name).toBe('official');
    const result = await client.sendMessage(message('hi'));
    expect(result.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(result.task?.artifacts?.[0]?.parts[0]?.text).toBe('echo: hi');
  });

  it('streams a message to completion', async () => {
    const events: StreamResponse[] = [];
    for await (const event of client.sendStreamingMessage(message('stream'))) events.push(event);
    expect(events[0]?.task).toBeDefined();
    expect(events.some((e) => e.artifactUpdate?.artifact.parts[0]?.text === 'echo: stream')).toBe(true);
    expect(stateOf(events.at(-1))).toBe('TASK_STATE_COMPLETED');
  });

  it('gets a task', async () => {
    const sent = await client.sendMessage(message('get'));
    const id = sent.task?.id as string;
    await expect(client.getTask({ id })).resolves.toMatchObject({ id, status: { state: 'TASK_STATE_COMPLETED' } });
  });

  it('subscribes to a running task', async () => {
    const held = await client.sendMessage({ ...message('hold'), configuration: { returnImmediately: true } });
    const id = held.task?.id as string;
    const events: StreamResponse[] = [];
    for await (const event of client.subscribeToTask({ id })) {
      events.push(event);
      if (events.length === 1) await client.sendMessage(message(`release:${id}`));
    }
    expect(events[0]?.task?.id ?? events[0]?.statusUpdate?.taskId).toBe(id);
    expect(stateOf(events.at(-1))).toBe('TASK_STATE_COMPLETED');
  });

  it('cancels a running task', async () => {
    const held = await client.sendMessage({ ...message('hold'), configuration: { returnImmediately: true } });
    const id = held.task?.id as string;
    const result = await client.cancelTask({ id });
    expect(result.id).toBe(id);
    expect(result.status.state).toBe('TASK_STATE_CANCELED');
  });
});

describe('v0.3 mode against the official server (legacy JSON-RPC compatibility)', () => {
  let client: A2AClient;
  beforeAll(() => {
    client = createA2AClient({ baseUrl: url, protocolVersion: '0.3', v0_3 });
  });

  it('sends with message/send and reads the v0.3 result as v1.0', async () => {
    const result = await client.sendMessage(message('legacy'));
    expect(result.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(result.task?.artifacts?.[0]?.parts[0]?.text).toBe('echo: legacy');
  });

  it('streams with message/stream and gets with tasks/get', async () => {
    const events: StreamResponse[] = [];
    for await (const event of client.sendStreamingMessage(message('legacy-stream'))) events.push(event);
    expect(stateOf(events.at(-1))).toBe('TASK_STATE_COMPLETED');
    const id = (events[0]?.task?.id ?? events[0]?.statusUpdate?.taskId) as string;
    await expect(client.getTask({ id })).resolves.toMatchObject({ id, status: { state: 'TASK_STATE_COMPLETED' } });
  });

  it('cancels with tasks/cancel', async () => {
    const held = await client.sendMessage({ ...message('hold'), configuration: { returnImmediately: true } });
    const id = held.task?.id as string;
    await expect(client.cancelTask({ id })).resolves.toMatchObject({ id, status: { state: 'TASK_STATE_CANCELED' } });
  });
});
