// The official @a2a-js/sdk agent of every "official" bench server: DefaultRequestHandler +
// InMemoryTaskStore with an executor equivalent to ours (one Message, or submitted -> working ->
// one text artifact -> completed).
import { AgentCard, type Artifact, type Message, Role, type Task, TaskState } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
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

export function officialExecutor(mode: Mode): AgentExecutor {
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
  store: InMemoryTaskStore,
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
  return new DefaultRequestHandler(card, store, officialExecutor(mode));
}

export { InMemoryTaskStore };
