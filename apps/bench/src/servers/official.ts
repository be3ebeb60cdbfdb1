// The official @a2a-js/sdk server: DefaultRequestHandler + InMemoryTaskStore + the express
// jsonRpcHandler, with an executor equivalent to ours (one Message, or submitted -> working ->
// one text artifact -> completed, or a stream of events).
import { createServer } from 'node:http';
import { AgentCard, type Artifact, type Message, Role, type Task, TaskState } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { UserBuilder, agentCardHandler, jsonRpcHandler } from '@a2a-js/sdk/server/express';
import express from 'express';
import { parseServerArgs, replyText, serve } from './common.js';

const args = parseServerArgs();

const agentMessage = (contextId: string, taskId: string, text: string): Message => ({
  messageId: globalThis.crypto.randomUUID(),
  contextId,
  taskId,
  role: Role.ROLE_AGENT,
  parts: [{ content: { $case: 'text', value: text }, metadata: undefined } as Message['parts'][number]],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

const status = (state: TaskState) => ({ state, message: undefined, timestamp: new Date().toISOString() });

const artifact = (text: string): Artifact => ({
  artifactId: 'a-1',
  name: '',
  description: '',
  parts: [{ content: { $case: 'text', value: text }, metadata: undefined } as Artifact['parts'][number]],
  metadata: undefined,
  extensions: [],
});

const executor: AgentExecutor = {
  async execute(ctx, bus) {
    const { taskId, contextId } = ctx;
    const content = ctx.userMessage.parts[0]?.content;
    const text = content?.$case === 'text' ? content.value : '';
    if (args.mode === 'message') {
      bus.publish(AgentEvent.message(agentMessage(contextId, '', replyText(text))));
      bus.finished();
      return;
    }
    const task: Task = { id: taskId, contextId, status: status(TaskState.TASK_STATE_SUBMITTED), artifacts: [], history: [ctx.userMessage], metadata: undefined };
    bus.publish(AgentEvent.task(task));
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_WORKING), metadata: undefined }));
    if (args.mode === 'task') {
      bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, artifact: artifact(replyText(text)), append: false, lastChunk: false, metadata: undefined }));
    } else {
      const chunks = Math.max(1, args.events - 3);
      for (let i = 0; i < chunks; i++) {
        bus.publish(
          AgentEvent.artifactUpdate({ taskId, contextId, artifact: artifact(`chunk ${i}`), append: i > 0, lastChunk: i === chunks - 1, metadata: undefined }),
        );
      }
    }
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_COMPLETED), metadata: undefined }));
    bus.finished();
  },
  async cancelTask(taskId, bus) {
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId: '', status: status(TaskState.TASK_STATE_CANCELED), metadata: undefined }));
    bus.finished();
  },
};

const store = new InMemoryTaskStore();
const app = express();

function mount(baseUrl: string): void {
  const card = AgentCard.fromJSON({
    name: 'bench-official',
    description: 'the @a2a-js/sdk reference server',
    version: '1.0.0',
    supportedInterfaces: [{ url: `${baseUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'echo', tags: ['echo'] }],
  });
  const requestHandler = new DefaultRequestHandler(card, store, executor);
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: requestHandler }));
}

/** Tasks in the SDK's store (its private nested maps; read for the memory report only). */
function countStored(): number {
  const root = (store as unknown as { _scopedStore: { _store: Map<string, Map<string, Map<string, unknown>>> } })._scopedStore._store;
  let count = 0;
  for (const tenant of root.values()) for (const owner of tenant.values()) count += owner.size;
  return count;
}

serve(createServer(app), args, countStored, mount);
