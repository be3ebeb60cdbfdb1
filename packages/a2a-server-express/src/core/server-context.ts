import { type AgentCard, isInterruptedTaskState, isTerminalTaskState, type Task } from '@a2aplane/a2a-types';
import type { TaskEventBus } from '../bus/task-event-bus.js';
import type { TaskStore } from '../store/task-store.js';
import type { A2AServerOptions } from './server-types.js';
import type { RuntimeDeps } from './task-runtime.js';

/** What every part of one server shares: its options and the seams it runs on. */
export interface ServerContext {
  readonly options: A2AServerOptions;
  readonly card: AgentCard;
  readonly store: TaskStore;
  readonly bus: TaskEventBus;
  /** The bus came from the options: other servers may share it (and send this one cancel requests). */
  readonly sharedBus: boolean;
  /** Events buffered per stream subscriber. */
  readonly bufferSize: number;
  readonly deps: RuntimeDeps;
  /** Reports to `options.onError`; never throws. */
  onError(message: string, error?: unknown): void;
}

/** A task state that ends a stream: terminal or interrupted. */
export const isFinal = (task: Task): boolean => isTerminalTaskState(task.status.state) || isInterruptedTaskState(task.status.state);

export function trimHistory(task: Task, historyLength: number | undefined): Task {
  if (historyLength === undefined || task.history === undefined) return task;
  if (historyLength === 0) {
    const { history: _omit, ...rest } = task;
    return rest;
  }
  return { ...task, history: task.history.slice(-historyLength) };
}
