import { isTerminalTaskState } from '@a2aplane/a2a-types';
import type { OrphanedTaskHandler } from '../bus/task-event-bus.js';
import { taskMapKey } from '../store/task-store.js';
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
  const { store, deps } = ctx;
  const { runtimes } = registry;
  return async (key, reason) => {
    let runtime = runtimes.get(taskMapKey(key));
    if (runtime?.running) return false;
    if (runtime === undefined) {
      const record = await store.get(key);
      if (record === undefined || isTerminalTaskState(record.task.status.state)) return false;
      runtime = new TaskRuntime(key, record.owner, record.task.contextId ?? '', deps, record.task, record.revision);
    }
    const target = runtime;
    // A stale runtime meets a compare-and-set conflict, reloads and fails the stored task (or adopts its end).
    return target.enqueue(async () => {
      const published = target.lastEventId;
      await target.failWith(reason, target.contextId);
      // Only a write of this call publishes; a conflict that adopted another replica's end does not.
      return target.lastEventId !== published;
    });
  };
}
