import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StreamResponse } from '@a2aplane/a2a-types';
import { TaskNotFoundError } from '@a2aplane/a2a-types';
import {
  type A2AServer,
  type AgentExecutor,
  createA2AServer,
  createAgentCard,
  createNodeHttpHandler,
  createTaskUpdater,
} from '@a2aplane/a2a-server-express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type A2AClient, bearerAuth, createA2AClient, discoverAgentCard } from '../src/index.js';

// Held tasks wait for the test to release them (or for a cancel).
const holds = new Map<string, () => void>();

const executor: AgentExecutor = {
  async execute(context, events) {
    const updater = createTaskUpdater(context, events);
    const text = context.message.parts[0]?.text ?? '';
    if (text === 'reply-with-message') {
      events.publish({ messageId: `r-${context.taskId}`, role: 'ROLE_AGENT', contextId: context.contextId, parts: [{ text: 'hi' }] });
      return;
    }
    updater.submit();
    updater.startWork('working');
    if (text === 'hold') {
      await new Promise<void>((resolve) => {
        holds.set(context.taskId, resolve);
        context.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      if (context.signal.aborted) return;
    }
    updater.addArtifact([{ text: `echo: ${text}` }], { name: 'echo' });
    updater.complete('done');
  },
};

let http: Server;
let server: A2AServer;
let url: string;

beforeAll(async () => {
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  http = createServer((req, res) => handler?.(req, res));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const card = createAgentCard({
    baseUrl: url,
    name: 'our server',
    description: 'echo agent',
    skills: [{ id: 'echo', name: 'Echo', description: 'echo', tags: [] }],
    capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
  });
  server = createA2AServer({
    card,
    executor,
    extendedCard: { ...card, name: 'our server (extended)' },
    authenticate: async () => ({ id: 'user-1', scheme: 'bearer' }),
    checkWebhookUrl: async () => ({ ok: true }),
  });
  handler = createNodeHttpHandler(server, { heartbeatMs: 0 });
});

afterAll(async () => {
  for (const release of holds.values()) release();
  await server.close();
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
});

const message = (text: string, messageId = globalThis.crypto.randomUUID()) => ({
  message: { messageId, role: 'ROLE_USER' as const, parts: [{ text }] },
});

async function waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
}

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('client against @a2aplane/a2a-server-express over %s', (binding) => {
  let client: A2AClient;
  beforeAll(() => {
    client = createA2AClient({
      baseUrl: url,
      preferredBindings: [binding],
      auth: bearerAuth({ getToken: () => 'token' }),
    });
  });

  it('discovers the card', async () => {
    const card = await discoverAgentCard(url);
    expect(card.name).toBe('our server');
    expect((await client.getCard()).supportedInterfaces.length).toBe(2);
  });

  it('SendMessage returns the completed task', async () => {
    const result = await client.sendMessage(message('one'));
    expect(result.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(result.task?.artifacts?.[0]?.parts[0]?.text).toBe('echo: one');
  });

  it('SendMessage may answer with a message', async () => {
    const result = await client.sendMessage(message('reply-with-message'));
    expect(result.message?.parts[0]?.text).toBe('hi');
  });

  it('SendStreamingMessage streams to the terminal state', async () => {
    const events: StreamResponse[] = [];
    for await (const event of client.sendStreamingMessage(message('two'))) events.push(event);
    const last = events.at(-1);
    expect(last?.statusUpdate?.status.state ?? last?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(events.some((e) => e.artifactUpdate?.artifact.parts[0]?.text === 'echo: two')).toBe(true);
  });

  it('GetTask, ListTasks and a typed TaskNotFound', async () => {
    const sent = await client.sendMessage(message('three'));
    const id = sent.task?.id as string;
    await expect(client.getTask({ id })).resolves.toMatchObject({ id });
    const list = await client.listTasks({ pageSize: 100 });
    expect(list.tasks.some((t) => t.id === id)).toBe(true);
    await expect(client.getTask({ id: 'no-such-task' })).rejects.toSatisfy((e: unknown) => TaskNotFoundError.isInstance(e));
  });

  it('SubscribeToTask follows a running task; CancelTask cancels another', async () => {
    const held = await client.sendMessage({ ...message('hold'), configuration: { returnImmediately: true } });
    const id = held.task?.id as string;
    await waitFor(() => holds.has(id));
    const events: StreamResponse[] = [];
    const done = (async () => {
      for await (const event of client.subscribeToTask({ id })) {
        events.push(event);
        if (events.length === 1) holds.get(id)?.();
      }
    })();
    await done;
    expect(events[0]?.task?.id).toBe(id);
    const last = events.at(-1);
    expect(last?.statusUpdate?.status.state ?? last?.task?.status.state).toBe('TASK_STATE_COMPLETED');

    const other = await client.sendMessage({ ...message('hold'), configuration: { returnImmediately: true } });
    const otherId = other.task?.id as string;
    await waitFor(() => holds.has(otherId));
    const canceled = await client.cancelTask({ id: otherId });
    expect(canceled.id).toBe(otherId);
    let state = canceled.status.state;
    for (let i = 0; i < 100 && state !== 'TASK_STATE_CANCELED'; i++) {
      await new Promise((r) => setTimeout(r, 10));
      state = (await client.getTask({ id: otherId })).status.state;
    }
    expect(state).toBe('TASK_STATE_CANCELED');
  });

  it('push notification config CRUD', async () => {
    const sent = await client.sendMessage(message('four'));
    const taskId = sent.task?.id as string;
    const created = await client.createTaskPushNotificationConfig({ taskId, url: 'https://hooks.example.com/a2a', token: 't' });
    expect(created.taskId).toBe(taskId);
    const id = created.id as string;
    await expect(client.getTaskPushNotificationConfig({ taskId, id })).resolves.toMatchObject({ id });
    const listed = await client.listTaskPushNotificationConfigs({ taskId });
    expect(listed.configs?.map((c) => c.id)).toContain(id);
    await expect(client.deleteTaskPushNotificationConfig({ taskId, id })).resolves.toEqual({});
    const after = await client.listTaskPushNotificationConfigs({ taskId });
    expect(after.configs ?? []).toHaveLength(0);
  });

  it('GetExtendedAgentCard', async () => {
    await expect(client.getExtendedAgentCard()).resolves.toMatchObject({ name: 'our server (extended)' });
  });
});
