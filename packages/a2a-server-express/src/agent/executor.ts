import type { Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2aplane/a2a-types';
import type { Principal } from '../core/types.js';

/** Lineage of a governed task; structurally the `TaskContext` of `@a2aplane/a2a-governance`. */
export interface TaskContextLike {
  traceId: string;
  parentTaskId?: string;
  depth: number;
  rootAgentId: string;
  visitedAgents: string[];
}

/** Everything an executor knows about the request it serves. */
export interface RequestContext {
  /** The incoming user message. */
  readonly message: Message;
  /** The stored task when the message continues one. */
  readonly task: Task | undefined;
  /** The id the task has (or will have when the executor creates it). */
  readonly taskId: string;
  readonly contextId: string;
  readonly principal: Principal | undefined;
  readonly tenant: string;
  /** The negotiated `A2A-Version` and the extensions listed in `A2A-Extensions`. */
  readonly version: string;
  readonly extensions: readonly string[];
  /** The skill the request was admitted for. */
  readonly skillId: string | undefined;
  readonly acceptedOutputModes: readonly string[] | undefined;
  /** The governed lineage of this task, when governance is configured. */
  readonly taskContext: TaskContextLike | undefined;
  /** Aborts when the task is canceled, the governor stops it, or an in-process caller gives up. */
  readonly signal: AbortSignal;
  /**
   * Marks a requested extension (one of `extensions`) active for this request: the server echoes
   * it in the `A2A-Extensions` response header (gRPC: metadata). Call it before publishing the
   * first event so a stream's headers carry it. False for an extension the caller did not request.
   */
  activateExtension(uri: string): boolean;
}

export type AgentEvent = Task | Message | TaskStatusUpdateEvent | TaskArtifactUpdateEvent;

export interface EventSink {
  /** Publishes one event; the server validates and aggregates it into the stored task. */
  publish(event: AgentEvent): void;
  /** Reports usage for governance metering and `finish()`. */
  reportUsage(usage: { tokens?: number; usd?: number }): void;
}

export interface AgentExecutor {
  execute(context: RequestContext, events: EventSink): Promise<void>;
  /** Optional: stop the work. The server publishes CANCELED itself when the task is not terminal afterwards. */
  cancel?(context: RequestContext, events: EventSink): Promise<void>;
}
