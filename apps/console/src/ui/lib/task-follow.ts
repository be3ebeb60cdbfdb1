import type { Artifact, Message, StreamResponse, Task, TaskStatus } from '@a2aplane/a2a-types';

/** A task as the console follows it: every status seen (in order), its artifacts, its messages. */
export interface FollowedTask {
  id: string;
  contextId: string | undefined;
  statuses: TaskStatus[];
  artifacts: Artifact[];
}

/** One line of the conversation. */
export type Entry =
  | { kind: 'user'; message: Message }
  | { kind: 'agent'; message: Message }
  | { kind: 'event'; label: string }
  | { kind: 'error'; error: unknown };

export const TERMINAL_STATES = new Set(['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED']);

function sameStatus(a: TaskStatus | undefined, b: TaskStatus): boolean {
  return a !== undefined && a.state === b.state && a.timestamp === b.timestamp && JSON.stringify(a.message) === JSON.stringify(b.message);
}

function withStatus(task: FollowedTask, status: TaskStatus): FollowedTask {
  return sameStatus(task.statuses.at(-1), status) ? task : { ...task, statuses: [...task.statuses, status] };
}

function withArtifact(task: FollowedTask, artifact: Artifact, append: boolean | undefined): FollowedTask {
  const index = task.artifacts.findIndex((a) => a.artifactId === artifact.artifactId);
  const artifacts = [...task.artifacts];
  if (index < 0) artifacts.push(artifact);
  else
    artifacts[index] = append
      ? { ...(artifacts[index] as Artifact), parts: [...(artifacts[index] as Artifact).parts, ...artifact.parts] }
      : artifact;
  return { ...task, artifacts };
}

/** A task snapshot (from SendMessage, GetTask or a stream's first event) folded into what was followed. */
export function foldTask(previous: FollowedTask | undefined, task: Task): FollowedTask {
  const base: FollowedTask = previous?.id === task.id ? previous : { id: task.id, contextId: task.contextId, statuses: [], artifacts: [] };
  let next = withStatus(base, task.status);
  for (const artifact of task.artifacts ?? []) next = withArtifact(next, artifact, false);
  return next;
}

/** One stream event folded into the followed task; a message event is returned for the conversation. */
export function foldEvent(task: FollowedTask | undefined, event: StreamResponse): { task: FollowedTask | undefined; entry?: Entry } {
  if (event.task)
    return { task: foldTask(task, event.task), entry: { kind: 'event', label: `task ${event.task.id}: ${event.task.status.state}` } };
  if (event.message) return { task, entry: { kind: 'agent', message: event.message } };
  if (event.statusUpdate) {
    const update = event.statusUpdate;
    const base = task?.id === update.taskId ? task : { id: update.taskId, contextId: update.contextId, statuses: [], artifacts: [] };
    return { task: withStatus(base, update.status), entry: { kind: 'event', label: `status ${update.status.state}` } };
  }
  if (event.artifactUpdate) {
    const update = event.artifactUpdate;
    const base = task?.id === update.taskId ? task : { id: update.taskId, contextId: update.contextId, statuses: [], artifacts: [] };
    return {
      task: withArtifact(base, update.artifact, update.append),
      entry: { kind: 'event', label: `artifact ${update.artifact.artifactId}${update.append ? ' (appended)' : ''}` },
    };
  }
  return { task };
}

export const stateOf = (task: FollowedTask | undefined): string | undefined => task?.statuses.at(-1)?.state;
