import {
  AgentCard as SdkAgentCard,
  type Artifact as SdkArtifact,
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
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import {
  AgentEvent,
  type AgentExecutor as SdkExecutor,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
} from '@a2a-js/sdk/server';
import { A2AService as SdkA2AService, grpcService } from '@a2a-js/sdk/server/grpc';
import { createAuthenticator, createStaticApiKeyVerifier, createTaskUpdater, type AgentExecutor } from '@a2aplane/a2a-server-express';
import { A2AError } from '@a2aplane/a2a-types';
import { credentials, Server, ServerCredentials } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseCard, collect, type GrpcTestClient, grpcClient, startAgent, type TestAgent, userMessage } from './helpers.js';

/** Echoes; `wait` runs until canceled. */
const ourExecutor: AgentExecutor = {
  async execute(context, events) {
    const task = createTaskUpdater(context, events);
    const text = context.message.parts.map((p) => ('text' in p ? p.text : '')).join('');
    task.submit();
    task.startWork();
    if (text === 'wait') {
      await new Promise<void>((resolve) => {
        if (context.signal.aborted) resolve();
        context.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      return;
    }
    task.addArtifact([{ text: `echo: ${text}` }], { artifactId: 'out', lastChunk: true });
    task.complete('done');
  },
};

function sdkMessage(text: string, extra: Record<string, unknown> = {}): SendMessageRequest {
  return SendMessageRequest.fromJSON({ message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] }, ...extra });
}

async function sdkCollect(stream: AsyncGenerator<SdkStreamResponse, void, undefined>, limit = 50): Promise<SdkStreamResponse[]> {
  const out: SdkStreamResponse[] = [];
  for await (const event of stream) {
    out.push(event);
    if (out.length >= limit) break;
  }
  return out;
}

describe('official @a2a-js/sdk gRPC client -> our gRPC server', () => {
  let agent: TestAgent;
  let client: Client;

  beforeAll(async () => {
    const card = baseCard({
      securitySchemes: { key: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } } },
    });
    agent = await startAgent({
      card,
      executor: ourExecutor,
      authenticate: createAuthenticator({
        securitySchemes: card.securitySchemes ?? {},
        apiKey: createStaticApiKeyVerifier({ 'k-1': { id: 'alice', scheme: 'key' } }),
        allowAnonymous: true,
      }),
      extendedCard: (principal) => ({ ...card, name: `extended for ${principal.id}` }),
    });
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new GrpcTransportFactory()],
        preferredTransports: ['GRPC'],
      }),
    );
    client = await factory.createFromAgentCard(SdkAgentCard.fromJSON(agent.card));
    expect(client.transport.protocolName).toBe('GRPC');
  });
  afterAll(() => agent?.close());

  it('SendMessage returns the completed task with the artifact', async () => {
    const task = (await client.sendMessage(sdkMessage('hello'))) as SdkTask;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts[0]?.parts[0]?.content).toEqual({ $case: 'text', value: 'echo: hello' });
  });

  it('SendStreamingMessage streams task, artifact and the COMPLETED status', async () => {
    const events = await sdkCollect(client.sendMessageStream(sdkMessage('stream me')));
    const cases = events.map((event) => event.payload?.$case);
    expect(cases[0]).toBe('task');
    expect(cases).toContain('artifactUpdate');
    const last = events.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('GetTask, ListTasks, CancelTask and SubscribeToTask', async () => {
    const done = (await client.sendMessage(sdkMessage('find me'))) as SdkTask;
    expect((await client.getTask(GetTaskRequest.fromJSON({ id: done.id }))).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const listed = await client.listTasks(ListTasksRequest.fromJSON({ contextId: done.contextId }));
    expect(listed.tasks.map((t) => t.id)).toEqual([done.id]);
    const started = (await client.sendMessage(sdkMessage('wait', { configuration: { returnImmediately: true } }))) as SdkTask;
    const stream = client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: started.id }));
    const first = await stream.next();
    expect(first.value?.payload?.$case).toBe('task');
    const canceled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: started.id }));
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const rest = await sdkCollect(stream);
    const last = rest.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it('push config create / get / list / delete', async () => {
    const task = (await client.sendMessage(sdkMessage('push'))) as SdkTask;
    const created = await client.createTaskPushNotificationConfig(
      TaskPushNotificationConfig.fromJSON({ taskId: task.id, url: 'https://hooks.example.com/x' }),
    );
    expect(created.id).not.toBe('');
    expect(
      (await client.getTaskPushNotificationConfig(GetTaskPushNotificationConfigRequest.fromJSON({ taskId: task.id, id: created.id }))).url,
    ).toBe('https://hooks.example.com/x');
    const listed = await client.listTaskPushNotificationConfig(ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: task.id }));
    expect(listed.configs.map((c) => c.id)).toEqual([created.id]);
    await client.deleteTaskPushNotificationConfig(DeleteTaskPushNotificationConfigRequest.fromJSON({ taskId: task.id, id: created.id }));
    expect(
      (await client.listTaskPushNotificationConfig(ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: task.id }))).configs,
    ).toEqual([]);
  });

  it('GetExtendedAgentCard with the API key as service parameter (metadata)', async () => {
    const extended = await client.transport.getExtendedAgentCard({ tenant: '' }, { serviceParameters: { 'X-API-Key': 'k-1' } });
    expect(extended.name).toBe('extended for alice');
  });

  it('our errors arrive as the official typed errors (status code + ErrorInfo reason)', async () => {
    const error = await client.getTask(GetTaskRequest.fromJSON({ id: 'missing' })).catch((e: unknown) => e);
    expect((error as Error).name).toBe('TaskNotFoundError');
    expect((error as { status: number }).status).toBe(5);
  });
});

describe('our gRPC client -> official @a2a-js/sdk gRPC server', () => {
  let server: Server;
  let client: GrpcTestClient;

  const waiting = new Map<string, { contextId: string; resolve: () => void }>();
  const status = (state: TaskState) => ({ state, message: undefined, timestamp: new Date().toISOString() });
  const sdkExecutor: SdkExecutor = {
    async execute(ctx, bus) {
      const { taskId, contextId } = ctx;
      const content = ctx.userMessage.parts[0]?.content;
      const text = content?.$case === 'text' ? content.value : '';
      const task: SdkTask = {
        id: taskId,
        contextId,
        status: status(TaskState.TASK_STATE_SUBMITTED),
        artifacts: [],
        history: [ctx.userMessage],
        metadata: undefined,
      };
      bus.publish(AgentEvent.task(task));
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_WORKING), metadata: undefined }));
      if (text === 'wait') {
        // Left working until CancelTask publishes the canceled status and finishes the bus.
        await new Promise<void>((resolve) => waiting.set(taskId, { contextId, resolve }));
        return;
      }
      const artifact: SdkArtifact = {
        artifactId: 'out',
        name: '',
        description: '',
        parts: [
          {
            content: { $case: 'text', value: `echo: ${text}` },
            metadata: undefined,
            filename: '',
            mediaType: '',
          } as SdkArtifact['parts'][number],
        ],
        metadata: undefined,
        extensions: [],
      };
      bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, artifact, append: false, lastChunk: true, metadata: undefined }));
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_COMPLETED), metadata: undefined }));
      bus.finished();
    },
    async cancelTask(taskId, bus) {
      const entry = waiting.get(taskId);
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId: entry?.contextId ?? '',
          status: status(TaskState.TASK_STATE_CANCELED),
          metadata: undefined,
        }),
      );
      bus.finished();
      entry?.resolve();
    },
  };

  beforeAll(async () => {
    const card = SdkAgentCard.fromJSON({
      name: 'official',
      description: 'the @a2a-js/sdk gRPC server',
      version: '1.0.0',
      supportedInterfaces: [{ url: '127.0.0.1:0', protocolBinding: 'GRPC', protocolVersion: '1.0' }],
      capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'echo', name: 'Echo', description: 'echo', tags: ['echo'] }],
    });
    const extended = SdkAgentCard.fromJSON({ ...(SdkAgentCard.toJSON(card) as object), name: 'official extended' });
    const handler = new DefaultRequestHandler(
      card,
      new InMemoryTaskStore(),
      sdkExecutor,
      undefined,
      new InMemoryPushNotificationStore(),
      undefined,
      extended,
    );
    server = new Server();
    server.addService(
      SdkA2AService,
      grpcService({ requestHandler: handler, userBuilder: async () => ({ isAuthenticated: true, userName: 'bob' }) }),
    );
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
    );
    client = grpcClient({ target: `127.0.0.1:${port}`, credentials: credentials.createInsecure() });
  });
  afterAll(() => {
    client?.close();
    server?.forceShutdown();
  });

  it('SendMessage', async () => {
    const result = await client.sendMessage({ message: userMessage('hello') });
    expect(result.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(result.task?.artifacts?.[0]?.parts[0]).toEqual({ text: 'echo: hello' });
  });

  it('SendStreamingMessage', async () => {
    const events = await collect(client.sendStreamingMessage({ message: userMessage('stream me') }));
    expect(Object.keys(events[0] ?? {})).toEqual(['task']);
    expect(events.some((e) => e.artifactUpdate?.artifact.parts[0]?.text === 'echo: stream me')).toBe(true);
    expect(events.at(-1)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('GetTask, ListTasks, CancelTask and SubscribeToTask', async () => {
    const done = await client.sendMessage({ message: userMessage('find me') });
    const id = done.task?.id as string;
    expect((await client.getTask({ id })).status.state).toBe('TASK_STATE_COMPLETED');
    expect((await client.listTasks({ contextId: done.task?.contextId as string })).tasks.map((t) => t.id)).toEqual([id]);
    const started = await client.sendMessage({ message: userMessage('wait'), configuration: { returnImmediately: true } });
    const waitingId = started.task?.id as string;
    const stream = client.subscribeToTask({ id: waitingId })[Symbol.asyncIterator]();
    const first = await stream.next();
    expect(first.value?.task?.id).toBe(waitingId);
    expect((await client.cancelTask({ id: waitingId })).status.state).toBe('TASK_STATE_CANCELED');
    let last = first.value;
    for (let next = await stream.next(); !next.done; next = await stream.next()) last = next.value;
    expect(last?.statusUpdate?.status.state ?? last?.task?.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('push config create / get / list / delete', async () => {
    const done = await client.sendMessage({ message: userMessage('push') });
    const taskId = done.task?.id as string;
    const created = await client.createTaskPushNotificationConfig({ taskId, id: 'cfg-1', url: 'https://hooks.example.com/x' });
    expect(created).toMatchObject({ taskId, id: 'cfg-1', url: 'https://hooks.example.com/x' });
    expect((await client.getTaskPushNotificationConfig({ taskId, id: 'cfg-1' })).url).toBe('https://hooks.example.com/x');
    expect((await client.listTaskPushNotificationConfigs({ taskId })).configs?.map((c) => c.id)).toEqual(['cfg-1']);
    await client.deleteTaskPushNotificationConfig({ taskId, id: 'cfg-1' });
    expect((await client.listTaskPushNotificationConfigs({ taskId })).configs ?? []).toEqual([]);
  });

  it('GetExtendedAgentCard', async () => {
    expect((await client.getExtendedAgentCard({})).name).toBe('official extended');
  });

  it('their errors arrive as our typed errors', async () => {
    const error = await client.getTask({ id: 'missing' }).catch((e: unknown) => e);
    expect(A2AError.isInstance(error) && error.reason).toBe('TASK_NOT_FOUND');
  });
});
