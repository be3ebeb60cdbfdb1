import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTasksRequest,
  SendMessageRequest,
  type StreamResponse as SdkStreamResponse,
  SubscribeToTaskRequest,
  type Task as SdkTask,
  TaskPushNotificationConfig,
  TaskState,
} from '@a2a-js/sdk';
import { type Client, ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AgentExecutor,
  type A2AServer,
  createA2AServer,
  createAgentCard,
  createNodeHttpHandler,
  createTaskUpdater,
} from '../../src/index.js';
import { createPushSender, createWebhookUrlGuard, type PushDeliveryEvent } from '../../src/push/index.js';
import { type Receiver, startReceiver } from '../push-receiver.js';

/**
 * The official JavaScript SDK client (`@a2a-js/sdk` 1.x, A2A v1.0) against this server over
 * real HTTP on 127.0.0.1, once per binding (JSON-RPC and HTTP+JSON).
 */

const ssrf = { allowLoopback: true, allowHttp: true } as const;

function textOf(message: { parts?: { text?: string }[] } | undefined): string {
  return message?.parts?.map((part) => part.text ?? '').join('') ?? '';
}

const executor: AgentExecutor = {
  async execute(context, events) {
    const updater = createTaskUpdater(context, events);
    const text = textOf(context.message);
    updater.submit();
    updater.startWork();
    if (text === 'wait') {
      // Runs until canceled.
      await new Promise<void>((resolve) => {
        if (context.signal.aborted) resolve();
        context.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      return;
    }
    updater.addArtifact([{ text: `echo: ${text}` }], { name: 'echo' });
    updater.complete('done');
  },
};

let httpServer: Server;
let a2a: A2AServer;
let baseUrl: string;
let receiver: Receiver;
const pushEvents: PushDeliveryEvent[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  httpServer = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  const card = createAgentCard({
    baseUrl,
    name: 'interop-echo',
    description: 'Echo agent for the official-client interop test',
    capabilities: { streaming: true, pushNotifications: true },
    skills: [{ id: 'echo', name: 'echo', description: 'Echoes text', tags: ['test'] }],
  });
  a2a = createA2AServer({
    card,
    executor,
    pushSender: createPushSender({ ssrf, onEvent: (event) => pushEvents.push(event), sleep: async () => undefined }),
    checkWebhookUrl: createWebhookUrlGuard(ssrf),
  });
  handler = createNodeHttpHandler(a2a);
});

afterAll(async () => {
  await a2a?.close();
  httpServer?.closeAllConnections();
  await new Promise<void>((resolve) => httpServer?.close(() => resolve()));
  await receiver?.close();
});

function userMessage(text: string, extra: Record<string, unknown> = {}): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] },
    ...extra,
  });
}

async function collect(stream: AsyncGenerator<SdkStreamResponse, void, undefined>, limit = 50): Promise<SdkStreamResponse[]> {
  const out: SdkStreamResponse[] = [];
  for await (const event of stream) {
    out.push(event);
    if (out.length >= limit) break;
  }
  return out;
}

function asTask(result: unknown): SdkTask {
  expect(result).toHaveProperty('status');
  return result as SdkTask;
}

async function waitUntil(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe.each([['JSONRPC'], ['HTTP+JSON']] as const)('official @a2a-js/sdk client over %s', (binding) => {
  let client: Client;

  beforeAll(async () => {
    const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [binding] }));
    client = await factory.createFromUrl(baseUrl);
    expect(client.transport.protocolName).toBe(binding);
  });

  it('reads our agent card (spec §8)', async () => {
    const card = await client.getAgentCard();
    expect(card.name).toBe('interop-echo');
    expect(card.capabilities?.streaming).toBe(true);
  });

  it('SendMessage returns a completed task with the artifact (spec §3.1.1)', async () => {
    const task = asTask(await client.sendMessage(userMessage('hello')));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts[0]?.parts[0]?.content).toEqual({ $case: 'text', value: 'echo: hello' });
  });

  it('SendStreamingMessage yields task, status and artifact events ending in COMPLETED (spec §3.1.2)', async () => {
    const events = await collect(client.sendMessageStream(userMessage('stream me')));
    const cases = events.map((event) => event.payload?.$case);
    expect(cases[0]).toBe('task');
    expect(cases).toContain('artifactUpdate');
    const last = events.at(-1)?.payload;
    expect(last?.$case).toBe('statusUpdate');
    if (last?.$case === 'statusUpdate') expect(last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('GetTask and ListTasks find the task (spec §3.1.3, §3.1.4)', async () => {
    const sent = asTask(await client.sendMessage(userMessage('find me')));
    const got = await client.getTask(GetTaskRequest.fromJSON({ id: sent.id }));
    expect(got.id).toBe(sent.id);
    expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const listed = await client.listTasks(ListTasksRequest.fromJSON({ contextId: sent.contextId }));
    expect(listed.tasks.map((task) => task.id)).toContain(sent.id);
  });

  it('CancelTask cancels a running task, and SubscribeToTask sees the terminal state (spec §3.1.5, §3.1.6)', async () => {
    const started = asTask(await client.sendMessage(userMessage('wait', { configuration: { returnImmediately: true } })));
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(started.status?.state);
    const stream = client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: started.id }));
    // The first event of a subscription is the current Task (spec §3.1.6): once it arrives, the subscriber is attached.
    const first = await stream.next();
    expect(first.done).toBe(false);
    expect(first.value?.payload?.$case).toBe('task');
    const canceled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: started.id }));
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const events = await collect(stream);
    const states = events.flatMap((event) =>
      event.payload?.$case === 'statusUpdate'
        ? [event.payload.value.status?.state]
        : event.payload?.$case === 'task'
          ? [event.payload.value.status?.state]
          : [],
    );
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('push config create / get / list / delete (spec §3.1.7-§3.1.10)', async () => {
    const task = asTask(await client.sendMessage(userMessage('push crud')));
    const created = await client.createTaskPushNotificationConfig(
      TaskPushNotificationConfig.fromJSON({
        taskId: task.id,
        url: receiver.url,
        token: 'crud-token',
        authentication: { scheme: 'Bearer', credentials: 'crud-cred' },
      }),
    );
    expect(created.taskId).toBe(task.id);
    expect(created.url).toBe(receiver.url);
    expect(created.id).not.toBe('');
    const got = await client.getTaskPushNotificationConfig(
      GetTaskPushNotificationConfigRequest.fromJSON({ taskId: task.id, id: created.id }),
    );
    expect(got.url).toBe(receiver.url);
    const listed = await client.listTaskPushNotificationConfig(ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: task.id }));
    expect(listed.configs.map((config) => config.id)).toContain(created.id);
    await client.deleteTaskPushNotificationConfig(DeleteTaskPushNotificationConfigRequest.fromJSON({ taskId: task.id, id: created.id }));
    const after = await client.listTaskPushNotificationConfig(ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: task.id }));
    expect(after.configs.map((config) => config.id)).not.toContain(created.id);
  });

  it('refuses a push config whose URL fails the SSRF check (spec §13.2)', async () => {
    const task = asTask(await client.sendMessage(userMessage('ssrf')));
    await expect(
      client.createTaskPushNotificationConfig(
        TaskPushNotificationConfig.fromJSON({ taskId: task.id, url: 'http://169.254.169.254/latest/meta-data/' }),
      ),
    ).rejects.toThrow();
  });

  it('delivers push notifications for an inline config to a loopback receiver (spec §4.3.3)', async () => {
    const before = receiver.requests.length;
    const task = asTask(
      await client.sendMessage(
        userMessage('push me', {
          configuration: { taskPushNotificationConfig: { url: receiver.url, token: `tok-${binding}` } },
        }),
      ),
    );
    await waitUntil(() =>
      receiver.requests.slice(before).some((request) => request.body.includes('TASK_STATE_COMPLETED') && request.body.includes(task.id)),
    );
    const mine = receiver.requests.slice(before).filter((request) => request.body.includes(task.id));
    expect(mine.length).toBeGreaterThan(0);
    expect(mine[0]?.headers['x-a2a-notification-token']).toBe(`tok-${binding}`);
    expect(mine[0]?.headers['content-type']).toBe('application/a2a+json');
    expect(pushEvents.filter((event) => event.type === 'refused')).toEqual([]);
  });
});

describe('official @a2a-js/sdk v0.3 client (compat/v0_3 LegacyJsonRpcTransport) against our v0.3 compatibility', () => {
  let legacy: LegacyJsonRpcTransport;
  beforeAll(() => {
    legacy = new LegacyJsonRpcTransport({ endpoint: `${baseUrl}/a2a/jsonrpc` });
  });

  it('message/send returns a completed task with the artifact', async () => {
    const task = asTask(await legacy.sendMessage(userMessage('legacy hello')));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts[0]?.parts[0]?.content).toEqual({ $case: 'text', value: 'echo: legacy hello' });
  });

  it('message/stream ends with a COMPLETED status update', async () => {
    const events = await collect(legacy.sendMessageStream(userMessage('legacy stream')));
    expect(events.map((event) => event.payload?.$case)).toContain('artifactUpdate');
    const last = events.at(-1)?.payload;
    expect(last?.$case).toBe('statusUpdate');
    if (last?.$case === 'statusUpdate') expect(last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('tasks/get and tasks/cancel', async () => {
    const done = asTask(await legacy.sendMessage(userMessage('legacy get')));
    const got = await legacy.getTask(GetTaskRequest.fromJSON({ id: done.id }));
    expect(got.id).toBe(done.id);
    const running = asTask(await legacy.sendMessage(userMessage('wait', { configuration: { returnImmediately: true } })));
    const canceled = await legacy.cancelTask(CancelTaskRequest.fromJSON({ id: running.id }));
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('tasks/pushNotificationConfig/set, get, list, delete', async () => {
    const task = asTask(await legacy.sendMessage(userMessage('legacy push')));
    const created = await legacy.createTaskPushNotificationConfig(
      TaskPushNotificationConfig.fromJSON({ taskId: task.id, id: 'legacy-cfg', url: receiver.url, token: 'legacy-token' }),
    );
    expect(created.url).toBe(receiver.url);
    expect(created.taskId).toBe(task.id);
    const got = await legacy.getTaskPushNotificationConfig(
      GetTaskPushNotificationConfigRequest.fromJSON({ taskId: task.id, id: created.id }),
    );
    expect(got.url).toBe(receiver.url);
    const listed = await legacy.listTaskPushNotificationConfig(ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: task.id }));
    expect(listed.configs.map((config) => config.id)).toContain(created.id);
    await legacy.deleteTaskPushNotificationConfig(DeleteTaskPushNotificationConfigRequest.fromJSON({ taskId: task.id, id: created.id }));
    const after = await legacy.listTaskPushNotificationConfig(ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: task.id }));
    expect(after.configs.map((config) => config.id)).not.toContain(created.id);
  });
});
