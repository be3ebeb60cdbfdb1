import type { Task } from '@a2aplane/a2a-types';
import type { RequestContext } from '../agent/executor.js';
import type { CoreRequest, CoreResponse } from './types.js';

/** What an execution observer learns when the run ended (the task's last write is done). */
export interface ExecutionOutcome {
  /** The task as the run left it; `undefined` when the agent answered with a message or produced nothing. */
  readonly task: Task | undefined;
  /** Whether the agent answered with a message instead of a task. */
  readonly message: boolean;
  /** Usage the executor reported with `sink.reportUsage` during this run. */
  readonly usage: { readonly tokens: number; readonly usd: number };
  /** What the executor threw, if it threw. */
  readonly error?: unknown;
}

/** One executor run, as an instrumentation sees it. */
export interface ExecutionObserver {
  /** Runs the executor (once): an instrumentation runs it inside the run's trace context. */
  run(execute: () => Promise<void>): Promise<void>;
  /** Called once after the run ended and governance settled. */
  end(outcome: ExecutionOutcome): void;
}

/**
 * The observability seam of the server core (`@a2aplane/a2a-otel` implements it with the
 * OpenTelemetry API). Without it the core calls nothing. Implementations must not throw: the
 * core does not guard these calls.
 */
export interface ServerInstrumentation {
  /**
   * Wraps one request of `handle`: calls `serve(request)` once and returns its response (a stream
   * may be wrapped). `serve` is the core's own handler, passed as is (no closure per request).
   */
  operation(request: CoreRequest, serve: (request: CoreRequest) => Promise<CoreResponse>): Promise<CoreResponse>;
  /**
   * Called before the executor runs a task; `undefined` when nothing observes this run (the core
   * then runs the executor as without instrumentation).
   */
  execution(context: RequestContext): ExecutionObserver | undefined;
  /**
   * The trace id a task without incoming lineage starts its root TaskContext on (the current span's),
   * so the TaskContext and the W3C `traceparent` carry one trace; `undefined` for a fresh one.
   */
  traceId?(): string | undefined;
}
