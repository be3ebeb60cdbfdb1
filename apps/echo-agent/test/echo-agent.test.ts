import { createA2AClient, parsePushNotification } from '@a2aplane/a2a-client';
import {
  createJwksKeyResolver,
  createPinnedKeyResolver,
  createWebhookVerifier,
  exportPublicJwk,
  verifyAgentCard,
} from '@a2aplane/a2a-identity';
import { A2AError, type StreamResponse } from '@a2aplane/a2a-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEchoExecutor, type EchoAgent, JWKS_PATH, startEchoAgent } from '../src/index.js';
import { startWebhookReceiver } from './webhook-receiver.js';

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

  it('publishes its key at the jku of the signature, so a stranger can verify the card (spec §8.4.3)', async () => {
    const text = await (await fetch(`${agent.url}/.well-known/agent-card.json`)).text();
    const resolver = createJwksKeyResolver({ allowInsecureLoopback: true, allowedJkuPrefixes: [`${agent.url}/`] });
    const result = await verifyAgentCard(text, resolver);
    expect(result).toMatchObject({ status: 'valid', agentId: agent.agentId });
    const jwks = (await (await fetch(`${agent.url}${JWKS_PATH}`)).json()) as { keys: unknown[] };
    expect(jwks.keys).toEqual([exportPublicJwk(agent.key)]);
    const card = JSON.parse(text);
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: true });
    expect(card.capabilities.extensions[0].params.webhook_algos).toEqual(['ed25519']);
    // The typed-artifact versions it speaks, for negotiation on discovery; no memory tier.
    expect(card.capabilities.extensions[0].params.artifact_kind_versions_supported).toEqual(['1']);
    expect(card.capabilities.extensions[0].params.memory).toBeUndefined();
  });

  it('echoes a message as one artifact of a completed task', async () => {
    const client = createA2AClient({ baseUrl: agent.url, allowInsecureLoopback: true });
    const response = await client.sendMessage({
      message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hello brave new world' }] },
    });
    expect(response.task?.status.state).toBe('TASK_STATE_COMPLETED');
    const parts = response.task?.artifacts?.[0]?.parts ?? [];
    expect(parts.map((part) => part.text).join('')).toBe('hello brave new world');
  });

  it('streams the words in order and ends completed', async () => {
    const client = createA2AClient({ baseUrl: agent.url, allowInsecureLoopback: true });
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

  it('pushes the task to a webhook, signed with its Ed25519 key and carrying the token (spec §4.3.3)', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const client = createA2AClient({ baseUrl: agent.url, allowInsecureLoopback: true });
      const response = await client.sendMessage({
        message: { messageId: 'm-push', role: 'ROLE_USER', parts: [{ text: 'call me back' }] },
        configuration: { taskPushNotificationConfig: { url: receiver.url, token: 'secret-token' } },
      });
      const taskId = response.task!.id;
      const verifier = createWebhookVerifier({ ed25519PublicKey: agent.key.publicKey });
      const states: string[] = [];
      for (let i = 0; i < 200 && !states.includes('TASK_STATE_COMPLETED'); i++) {
        states.length = 0;
        for (const delivery of receiver.deliveries) {
          expect(delivery.headers['x-a2a-notification-token']).toBe('secret-token');
          const parsed = await parsePushNotification(delivery.headers, delivery.body, { verifier });
          expect(parsed.ok).toBe(true);
          if (!parsed.ok) continue;
          expect(parsed.verified).toBe(true);
          const event = parsed.event;
          const state = event.task?.status.state ?? event.statusUpdate?.status.state;
          if (state && (event.task?.id ?? event.statusUpdate?.taskId) === taskId) states.push(state);
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(states).toContain('TASK_STATE_COMPLETED');
      // A tampered body does not verify.
      const tampered = await parsePushNotification(receiver.deliveries[0]!.headers, `${receiver.deliveries[0]!.body} `, { verifier });
      expect(tampered).toMatchObject({ ok: false, reason: 'signature-invalid' });
    } finally {
      await receiver.close();
    }
  });

  it('refuses a webhook on a private or metadata address (SSRF guard)', async () => {
    const client = createA2AClient({ baseUrl: agent.url, allowInsecureLoopback: true });
    const task = (await client.sendMessage({ message: { messageId: 'm-ssrf', role: 'ROLE_USER', parts: [{ text: 'x' }] } })).task!;
    for (const url of ['http://10.0.0.7/hook', 'http://169.254.169.254/latest']) {
      const error = await client.createTaskPushNotificationConfig({ taskId: task.id, url }).catch((e: unknown) => e);
      expect(A2AError.isInstance(error), url).toBe(true);
      expect((error as A2AError).message).toContain('Webhook URL rejected');
    }
  });

  it('stops when canceled', async () => {
    const slow = await startEchoAgent({ wordDelayMs: 200 });
    try {
      const client = createA2AClient({ baseUrl: slow.url, allowInsecureLoopback: true });
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

describe('echo agent under hostile input (issue 14)', () => {
  it('a 60 KB data part nested 30 000 levels is refused with the request id, and the agent keeps serving', async () => {
    const agent = await startEchoAgent();
    try {
      const depth = 30_000;
      const message = `{"messageId":"m-deep","role":"ROLE_USER","parts":[{"data":${'['.repeat(depth)}${']'.repeat(depth)}}]}`;
      const viaRpc = await fetch(`${agent.url}/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
        body: `{"jsonrpc":"2.0","id":"deep","method":"SendMessage","params":{"message":${message}}}`,
      });
      expect(await viaRpc.json()).toMatchObject({ id: 'deep', error: { code: -32602 } });
      const viaRest = await fetch(`${agent.url}/a2a/rest/message:send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
        body: `{"message":${message}}`,
      });
      expect(viaRest.status).toBe(400);
      const client = createA2AClient({ baseUrl: agent.url, allowInsecureLoopback: true });
      const result = await client.sendMessage({ message: { messageId: 'm-after', role: 'ROLE_USER', parts: [{ text: 'still here' }] } });
      expect(result.task?.status.state).toBe('TASK_STATE_COMPLETED');
    } finally {
      await agent.close();
    }
  });

  it('the executor echoes a data part JSON cannot render as a marker instead of failing', async () => {
    const events: unknown[] = [];
    const deep = JSON.parse(`${'['.repeat(20_000)}${']'.repeat(20_000)}`) as unknown;
    const context = {
      taskId: 't',
      contextId: 'c',
      message: { messageId: 'm', role: 'ROLE_USER' as const, parts: [{ data: deep }, { text: 'tail' }] },
      signal: new AbortController().signal,
    };
    await createEchoExecutor().execute(context as never, { publish: (event) => events.push(event), reportUsage: () => undefined });
    // The first event (the submitted task) carries the user message itself: look at the rest.
    const artifacts = events.filter((event) => typeof event === 'object' && event !== null && 'artifact' in event);
    expect(JSON.stringify(artifacts)).toContain('[data]');
    const last = events.at(-1) as { status?: { state?: string } };
    expect(last.status?.state).toBe('TASK_STATE_COMPLETED');
  });
});
