import type { Artifact, Task } from './model/task.js';
import type { StreamResponse } from './model/requests.js';

/**
 * Folds one stream event into the task a client is tracking (spec §3.2.3, §4.2). Pure: the input
 * task is never mutated. A `task` event replaces the state; a status update replaces the status and
 * merges metadata; an artifact update inserts the artifact by `artifactId`, or with `append: true`
 * concatenates its parts onto the existing one. A `message` event does not change a task, and events
 * about another task are ignored. Before the first `task` event, updates build a minimal task.
 */
export function applyStreamResponse(task: Task | undefined, event: StreamResponse): Task | undefined {
  if (event.task !== undefined) return event.task;
  if (event.message !== undefined) return task;
  if (event.statusUpdate !== undefined) {
    const update = event.statusUpdate;
    if (task && task.id !== update.taskId) return task;
    const base: Task = task ?? { id: update.taskId, contextId: update.contextId, status: update.status };
    const next: Task = { ...base, status: update.status };
    if (update.metadata !== undefined) next.metadata = { ...base.metadata, ...update.metadata };
    return next;
  }
  const update = event.artifactUpdate;
  if (update === undefined) return task;
  if (task && task.id !== update.taskId) return task;
  // Without a task event yet, the status is unknown; SUBMITTED is the only state a fresh task can be in.
  const base: Task = task ?? {
    id: update.taskId,
    contextId: update.contextId,
    status: { state: 'TASK_STATE_SUBMITTED' },
  };
  const artifacts = [...(base.artifacts ?? [])];
  const index = artifacts.findIndex((artifact) => artifact.artifactId === update.artifact.artifactId);
  if (index === -1) {
    artifacts.push(update.artifact);
  } else if (update.append === true) {
    artifacts[index] = appendArtifact(artifacts[index]!, update.artifact);
  } else {
    artifacts[index] = update.artifact;
  }
  return { ...base, artifacts };
}

function appendArtifact(existing: Artifact, chunk: Artifact): Artifact {
  const merged: Artifact = { ...existing, ...chunk, parts: [...existing.parts, ...chunk.parts] };
  if (existing.metadata !== undefined || chunk.metadata !== undefined) {
    merged.metadata = { ...existing.metadata, ...chunk.metadata };
  }
  if (existing.extensions !== undefined || chunk.extensions !== undefined) {
    merged.extensions = [...new Set([...(existing.extensions ?? []), ...(chunk.extensions ?? [])])];
  }
  return merged;
}
