import type { Artifact, Message, Part, Task, TaskState } from '@a2aplane/a2a-types';
import type { EventSink, RequestContext } from './executor.js';
import { isoNow } from './iso-now.js';
import { newId } from './new-id.js';

export interface TaskUpdater {
  readonly taskId: string;
  readonly contextId: string;
  /** Publishes the Task in SUBMITTED state (skipped when the context already has a task). */
  submit(): void;
  startWork(message?: string | Part[]): void;
  addArtifact(
    parts: Part[],
    options?: { artifactId?: string; name?: string; append?: boolean; lastChunk?: boolean; metadata?: Record<string, unknown> },
  ): string;
  complete(message?: string | Part[]): void;
  fail(message?: string | Part[]): void;
  requireInput(message?: string | Part[]): void;
  reject(message?: string | Part[]): void;
  cancel(message?: string | Part[]): void;
  /** Publishes a status change to any state. */
  updateStatus(state: Exclude<TaskState, 'TASK_STATE_UNSPECIFIED'>, message?: string | Part[]): void;
}

function agentMessage(taskId: string, contextId: string, content: string | Part[] | undefined): Message | undefined {
  return content === undefined
    ? undefined
    : {
        messageId: newId(),
        role: 'ROLE_AGENT',
        taskId,
        contextId,
        parts: typeof content === 'string' ? [{ text: content }] : content,
      };
}

/** Small helpers so executors do not build status and artifact events by hand. */
export function createTaskUpdater(context: RequestContext, events: EventSink): TaskUpdater {
  const { taskId, contextId } = context;
  // Methods that use no `this` (an executor may pass `updater.complete` around), and no arrow
  // functions: one updater is made per task.
  const updater: TaskUpdater = {
    taskId,
    contextId,
    submit() {
      if (context.task) return;
      const task: Task = {
        id: taskId,
        contextId,
        status: { state: 'TASK_STATE_SUBMITTED', timestamp: isoNow() },
        history: [context.message],
      };
      events.publish(task);
    },
    startWork(message) {
      updater.updateStatus('TASK_STATE_WORKING', message);
    },
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
    complete(message) {
      updater.updateStatus('TASK_STATE_COMPLETED', message);
    },
    fail(message) {
      updater.updateStatus('TASK_STATE_FAILED', message);
    },
    requireInput(message) {
      updater.updateStatus('TASK_STATE_INPUT_REQUIRED', message);
    },
    reject(message) {
      updater.updateStatus('TASK_STATE_REJECTED', message);
    },
    cancel(message) {
      updater.updateStatus('TASK_STATE_CANCELED', message);
    },
    updateStatus(state, message) {
      const agent = agentMessage(taskId, contextId, message);
      events.publish({
        taskId,
        contextId,
        status: agent ? { state, timestamp: isoNow(), message: agent } : { state, timestamp: isoNow() },
      });
    },
  };
  return updater;
}
