import { type Task, TaskNotFoundError } from '@a2aplane/a2a-types';
import { type StoredTask, type TaskKey, taskMapKey } from '../store/task-store.js';
import { TaskRuntime } from './task-runtime.js';
import type { Caller } from './caller.js';
import type { ServerContext } from './server-context.js';

/** The task runtimes live in this server, and how a caller's task is found (stored, or live here). */
export function createTaskRegistry(ctx: ServerContext) {
  const { store, deps } = ctx;
  const runtimes = new Map<string, TaskRuntime>();

  const releaseIfIdle = (runtime: TaskRuntime): void => {
    if (runtime.idle && runtimes.get(runtime.mapKey) === runtime) runtimes.delete(runtime.mapKey);
  };

  /** The stored task of `caller`, or TaskNotFoundError (also for tasks of another principal, §7.5). */
  async function loadOwned(key: TaskKey, caller: Caller): Promise<Task> {
    const live = runtimes.get(taskMapKey(key));
    if (live?.task && live.owner === caller.owner) return live.task;
    return (await loadRecord(key, caller)).task;
  }

  async function loadRecord(key: TaskKey, caller: Caller): Promise<StoredTask> {
    const record = await store.get(key);
    if (!record || record.owner !== caller.owner) throw new TaskNotFoundError({ metadata: { taskId: key.taskId.slice(0, 128) } });
    return record;
  }

  async function runtimeFor(key: TaskKey, caller: Caller): Promise<TaskRuntime> {
    const existing = runtimes.get(taskMapKey(key));
    if (existing) {
      if (existing.owner !== caller.owner || !existing.task)
        throw new TaskNotFoundError({ metadata: { taskId: key.taskId.slice(0, 128) } });
      return existing;
    }
    const { task, revision } = await loadRecord(key, caller);
    const runtime = new TaskRuntime(key, caller.owner, task.contextId ?? '', deps, task, revision);
    runtimes.set(runtime.mapKey, runtime);
    return runtime;
  }

  /** Drops runtimes nobody uses any more (after a request failed half-way). */
  const sweepIdle = (): void => {
    for (const runtime of [...runtimes.values()]) releaseIfIdle(runtime);
  };

  return { runtimes, releaseIfIdle, sweepIdle, loadOwned, loadRecord, runtimeFor };
}

export type TaskRegistry = ReturnType<typeof createTaskRegistry>;
