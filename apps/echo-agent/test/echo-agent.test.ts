import { createA2AClient } from '@a2aplane/a2a-client';
import { createPinnedKeyResolver, exportPublicJwk, verifyAgentCard } from '@a2aplane/a2a-identity';
import type { StreamResponse } from '@a2aplane/a2a-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EchoAgent, startEchoAgent } from '../src/index.js';

describe('echo agent', () => {
  let agent: EchoAgent;
  beforeAll(async () => {
    agent = await startEchoAgent({ wordDelayMs: 5 });
  });
  afterAll(async () => {
    await agent.close();
  });

  it('serves a card signed by the key its AgentID names', async () => {
    const text = await (await fetch(`${agent.url}/.well-known/agent-card.json`)).text();
    const result = await verifyAgentCard(text, createPinnedKeyResolver([exportPublicJwk(agent.key)]));
    expect(result.status).toBe('valid');
    expect(JSON.parse(text).capabilities.extensions[0].params.agent_id).toBe(agent.agentId);
  });

  it('echoes a message as one artifact of a completed task', async () => {
    const client = createA2AClient({ baseUrl: agent.url });
    const response = await client.sendMessage({
      message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hello brave new world' }] },
    });
    expect(response.task?.status.state).toBe('TASK_STATE_COMPLETED');
    const parts = response.task?.artifacts?.[0]?.parts ?? [];
    expect(parts.map((part) => part.text).join('')).toBe('hello brave new world');
  });

  it('streams the words in order and ends completed', async () => {
    const client = createA2AClient({ baseUrl: agent.url });
    const events: StreamResponse[] = [];
    for await (const event of client.sendStreamingMessage({
      message: { messageId: 'm-2', role: 'ROLE_USER', parts: [{ text: 'one two three' }] },
    })) {
      events.push(event);
    }
    const chunks = events.flatMap((event) => event.artifactUpdate?.artifact.parts.map((part) => part.text) ?? []);
    expect(chunks).toEqual(['one', ' two', ' three']);
    expect(events.at(-1)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('stops when canceled', async () => {
    const slow = await startEchoAgent({ wordDelayMs: 200 });
    try {
      const client = createA2AClient({ baseUrl: slow.url });
      const started = await client.sendMessage({
        message: { messageId: 'm-3', role: 'ROLE_USER', parts: [{ text: 'a b c d e f g h i j' }] },
        configuration: { returnImmediately: true },
      });
      const taskId = started.task!.id;
      const canceled = await client.cancelTask({ id: taskId });
      expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
      const later = await client.getTask({ id: taskId });
      expect(later.status.state).toBe('TASK_STATE_CANCELED');
    } finally {
      await slow.close();
    }
  });
});
