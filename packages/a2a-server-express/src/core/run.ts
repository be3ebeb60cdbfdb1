import type { Message } from '@a2aplane/a2a-types';
import type { EventSink, TaskContextLike } from '../agent/executor.js';
import type { StoredPushConfig } from '../store/task-store.js';
import type { ExecutionSignal } from './execution-signal.js';
import type { ExecutorRequestContext } from './request-context.js';
import type { GovernedTaskLike } from './server-types.js';

/**
 * One run of the executor on a task: what started it and what cancel, limits and its end need.
 * Made once per SendMessage that starts or continues a task; `TaskRuntime.beginRun` and `endRun`
 * bracket it, and only the runtime keeps the run state.
 */
export interface Run {
  /** The executor's signal: follows cancel, server close, the governor's limits and the caller. */
  readonly signal: ExecutionSignal;
  /** The executor's request context (`task`: the task a continuation continues). */
  readonly context: ExecutorRequestContext;
  readonly sink: EventSink;
  /** Governance's handle on the run; `undefined` without governance. */
  readonly governed: GovernedTaskLike | undefined;
  /** An in-process caller's signal (a dispatcher's local executor): its abort cancels the task. */
  readonly callerSignal: AbortSignal | undefined;
  /** Usage the executor reported so far (`sink.reportUsage`). */
  readonly usage: { tokens: number; usd: number };
  /** The user message that starts a new task: put first into its history (`undefined`: a continuation). */
  readonly firstMessage: Message | undefined;
  /** The inline push config of a new task: stored between its first write and its first event. */
  readonly pushConfig: StoredPushConfig | undefined;
}

/** What an in-process caller adds to a send (`A2AServer.stream`), and the task id a send key claimed. */
export interface ExecutionExtra {
  context?: TaskContextLike;
  signal?: AbortSignal;
  /** The id of a new task, claimed with its send key before the task starts. */
  taskId?: string;
}
export const NO_EXTRA: ExecutionExtra = {};
