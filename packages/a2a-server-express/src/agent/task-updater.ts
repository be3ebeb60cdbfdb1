import type { Artifact, Message, Part, Task, TaskState } from '@a2aplane/a2a-types';
import type { EventSink, RequestContext } from './executor.js';

export interface TaskUpdater {
  readonly taskId: string;
  readonly contextId: string;
  /** Publishes the Task in SUBMITTED state (skipped when the context already has a task). */
  submit(): void;
  startWork(message?: string | Part[]): void;
  addArtifact(parts: Part[], options?: { artifactId?: string; name?: string; append?: boolean; lastChunk?: boolean; metadata?: Record<string, unknown> }): string;
  complete(message?: string | Part[]): void;
  fail(message?: string | Part[]): void;
  requireInput(message?: string | Part[]): void;
  reject(message?: string | Part[]): void;
  cancel(message?: string | Part[]): void;
  /** Publishes a status change to any state. */
  updateStatus(state: Exclude<TaskState, 'TASK_STATE_UNSPECIFIED'>, message?: string | Part[]): void;
}

let counter = 0;
const newId = (): string => globalThis.crypto.randomUUID?.() ?? `id-${Date.now()}-${++counter}`;

/** Small helpers so executors do not build status and artifact events by hand. */
export function createTaskUpdater(context: RequestContext, events: EventSink): TaskUpdater {
  const { taskId, contextId } = context;
  const agentMessage = (content: string | Part[] | undefined): Message | undefined =>
    content === undefined
      ? undefined
      : {
          messageId: newId(),
          role: 'ROLE_AGENT',
          taskId,
          contextId,
          parts: typeof content === 'string' ? [{ text: content }] : content,
        };
  const updateStatus: TaskUpdater['updateStatus'] = (state, message) => {
    const agent = agentMessage(message);
    events.publish({
      taskId,
      contextId,
      status: { state, timestamp: new Date().toISOString(), ...(agent ? { message: agent } : {}) },
    });
  };
  return {
    taskId,
    contextId,
    submit() {
      if (context.task) return;
      const task: Task = {
        id: taskId,
        contextId,
        status: { state: 'TASK_STATE_SUBMITTED', timestamp: new Date().toISOString() },
        history: [context.message],
      };
      events.publish(task);
    },
    startWork: (message) => updateStatus('TASK_STATE_WORKING', message),
    addArtifact(parts, options = {}) {
      const artifactId = options.artifactId ?? newId();
      const artifact: Artifact = {
        artifactId,
        parts,
        ...(options.name === undefined ? {} : { name: options.name }),
        ...(options.metadata === undefined ? {} : { metadata: options.metadata }),
      };
      events.publish({
        taskId,
        contextId,
        artifact,
        ...(options.append === undefined ? {} : { append: options.append }),
        ...(options.lastChunk === undefined ? {} : { lastChunk: options.lastChunk }),
      });
      return artifactId;
    },
    complete: (message) => updateStatus('TASK_STATE_COMPLETED', message),
    fail: (message) => updateStatus('TASK_STATE_FAILED', message),
    requireInput: (message) => updateStatus('TASK_STATE_INPUT_REQUIRED', message),
    reject: (message) => updateStatus('TASK_STATE_REJECTED', message),
    cancel: (message) => updateStatus('TASK_STATE_CANCELED', message),
    updateStatus,
  };
}
