import type { StreamResponse, Task } from '@a2aplane/a2a-types';
import type { TaskKey, TaskStore } from '../store/task-store.js';
import type { PushSender } from './types.js';

/**
 * Hands one event of a task to the push sender, once per push config of the task, with the task's
 * tenant and the task after the event (what a sender coalesces waiting notifications into).
 */
export async function notifyPushConfigs(
  deps: { store: TaskStore; pushSender: PushSender | undefined },
  key: TaskKey,
  payload: StreamResponse,
  task: Task | undefined,
): Promise<void> {
  const sender = deps.pushSender;
  if (!sender) return;
  for (const config of await deps.store.listPushConfigs(key)) {
    try {
      sender.notify({ config, payload, taskId: key.taskId, tenant: key.tenant, task });
    } catch {
      // Push delivery is best effort; it never breaks the task.
    }
  }
}
