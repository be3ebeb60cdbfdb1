import { isTerminalTaskState } from '@a2aplane/a2a-types';
import type { OrphanedTaskHandler } from '../bus/task-event-bus.js';
import { type StoredTask, type TaskKey, taskMapKey } from '../store/task-store.js';
import type { ServerContext } from './server-context.js';
import type { TaskRegistry } from './task-registry.js';
import { TaskRuntime } from './task-runtime.js';

/**
 * How this server ends a task whose runner died, when a shared bus that watches replicas tells it
 * to: FAILED with the bus's reason, through a runtime's compare-and-set write and a final event
 * (so subscribers on every replica see the end, and push configs are notified), as a governance
 * limit ends a run. A task this replica runs is never touched: its runner is alive.
 */
export function createOrphanedTaskHandler(ctx: ServerContext, registry: TaskRegistry): OrphanedTaskHandler {
  const { store, bus, deps } = ctx;
  const { runtimes } = registry;

  /**
   * The runner died between its final write and its publish (or a previous attempt here did):
   * the task is terminal but its log does not end, so subscribers would wait. Publish the end.
   */
  async function publishMissingEnd(key: TaskKey, record: StoredTask): Promise<void> {
    const log = await bus.read(key);
    if (log?.events.at(-1)?.final === true) return;
    const { task } = record;
    await bus.publish(key, {
      event: { statusUpdate: { taskId: task.id, contextId: task.contextId ?? '', status: task.status } },
      final: true,
      revision: record.revision,
    });
  }

  return async (key, reason) => {
    const live = runtimes.get(taskMapKey(key));
    if (live?.running) return false;
    const record = await store.get(key);
    if (record === undefined) return false;
    if (isTerminalTaskState(record.task.status.state)) {
      await publishMissingEnd(key, record);
      return false;
    }
    const runtime = live ?? new TaskRuntime(key, record.owner, record.task.contextId ?? '', deps, record.task, record.revision);
    // A stale runtime meets a compare-and-set conflict, reloads and fails the stored task (or adopts its end).
    return runtime.enqueue(async () => {
      const published = runtime.lastEventId;
      await runtime.failWith(reason, runtime.contextId);
      // Only a write of this call publishes; a conflict that adopted another replica's end does not.
      return runtime.lastEventId !== published;
    });
  };
}
