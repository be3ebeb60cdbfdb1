// The official @a2a-js/sdk agent of every "official" bench server: DefaultRequestHandler +
// InMemoryTaskStore with an executor equivalent to ours (one Message, or submitted -> working ->
// one text artifact -> completed, or a stream of events).
import { AgentCard, type Artifact, type Message, Role, type Task, TaskState } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, DefaultRequestHandler, InMemoryTaskStore, type TaskStore } from '@a2a-js/sdk/server';
import { type Mode, replyText } from './common.js';

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

export function officialExecutor(mode: Mode, events: number): AgentExecutor {
  return {
    async execute(ctx, bus) {
      const { taskId, contextId } = ctx;
      const content = ctx.userMessage.parts[0]?.content;
      const text = content?.$case === 'text' ? content.value : '';
      if (mode === 'message') {
        bus.publish(AgentEvent.message(agentMessage(contextId, '', replyText(text))));
        bus.finished();
        return;
      }
      const task: Task = {
        id: taskId,
        contextId,
        status: status(TaskState.TASK_STATE_SUBMITTED),
        artifacts: [],
        history: [ctx.userMessage],
        metadata: undefined,
      };
      bus.publish(AgentEvent.task(task));
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_WORKING), metadata: undefined }));
      if (mode === 'task') {
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId,
            contextId,
            artifact: artifact(replyText(text)),
            append: false,
            lastChunk: false,
            metadata: undefined,
          }),
        );
      } else {
        const chunks = Math.max(1, events - 3);
        for (let i = 0; i < chunks; i++) {
          bus.publish(
            AgentEvent.artifactUpdate({
              taskId,
              contextId,
              artifact: artifact(`chunk ${i}`),
              append: i > 0,
              lastChunk: i === chunks - 1,
              metadata: undefined,
            }),
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
}

/** The official request handler serving `interfaceUrl` with `binding`. */
export function officialHandler(
  interfaceUrl: string,
  binding: 'JSONRPC' | 'GRPC',
  mode: Mode,
  events: number,
  store: TaskStore,
): DefaultRequestHandler {
  const card = AgentCard.fromJSON({
    name: 'bench-official',
    description: 'the @a2a-js/sdk reference server',
    version: '1.0.0',
    supportedInterfaces: [{ url: interfaceUrl, protocolBinding: binding, protocolVersion: '1.0' }],
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'echo', tags: ['echo'] }],
  });
  return new DefaultRequestHandler(card, store, officialExecutor(mode, events));
}

/** Tasks in the SDK's store (its private nested maps; read for the memory report only). */
export function countOfficialStored(store: InMemoryTaskStore): number {
  const root = (store as unknown as { _scopedStore: { _store: Map<string, Map<string, Map<string, unknown>>> } })._scopedStore._store;
  let count = 0;
  for (const tenant of root.values()) for (const owner of tenant.values()) count += owner.size;
  return count;
}

export { InMemoryTaskStore };
