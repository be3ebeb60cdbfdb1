import type { A2AError } from '@a2aplane/a2a-types';

// Structural types of what the instrumentation reads from the server core, the governor and the
// client, so that this package depends on none of them (as a2a-server-express's
// `GovernanceOptions` is structurally the Governor). Each names the type it mirrors.

/** Structurally `CoreRequest` of a2a-server-express: the fields the operation span reads. */
export interface OperationRequest {
  readonly method: string;
  readonly version?: string | undefined;
  /** What an authenticator sees: lower-case headers (the W3C `traceparent` among them). */
  readonly auth?: { readonly headers: Readonly<Record<string, string | undefined>> } | undefined;
}

/** Structurally `CoreResponse` of a2a-server-express. */
export type OperationResponse =
  | { kind: 'result'; result: unknown }
  | { kind: 'stream'; events: AsyncIterable<unknown> }
  | { kind: 'error'; error: A2AError };

/** Structurally the `RequestContext` of an executor run (the fields the span records). */
export interface ExecutionContext {
  readonly taskId: string;
  readonly contextId: string;
  readonly skillId?: string | undefined;
  readonly principal?: { readonly id: string; readonly agentId?: string | undefined } | undefined;
  readonly taskContext?:
    | {
        readonly traceId: string;
        readonly depth: number;
        readonly rootAgentId: string;
        readonly visitedAgents: readonly string[];
        readonly parentTaskId?: string | undefined;
      }
    | undefined;
}

/** Structurally `ExecutionOutcome` of a2a-server-express. */
export interface ExecutionEnd {
  readonly task: { readonly status: { readonly state: string } } | undefined;
  readonly message: boolean;
  readonly usage: { readonly tokens: number; readonly usd: number };
  readonly error?: unknown;
}

/** Structurally `ExecutionObserver` of a2a-server-express. */
export interface ExecutionObserverLike {
  run(execute: () => Promise<void>): Promise<void>;
  end(outcome: ExecutionEnd): void;
}

/** Structurally `GovernanceStageStart` of a2a-governance. */
export interface StageStart {
  readonly stage: string;
  readonly dispatchId: string;
  readonly caller: string;
  readonly skill: string;
  readonly traceId?: string | undefined;
  readonly estimatedCostUsd?: number | undefined;
  readonly startTime: number;
}

/** Structurally `GovernanceStageFinish` of a2a-governance. */
export interface StageFinish extends StageStart {
  readonly decision: 'accepted' | 'rejected' | 'error';
  readonly reason?: string | undefined;
  /** The refusal itself: a budget refusal's `metadata` tells where the budget stood. */
  readonly error?: unknown;
  readonly endTime: number;
}

/** Structurally `GovernanceHooks` of a2a-governance. */
export interface StageHooks {
  onStageStart(stage: StageStart): void;
  onStageFinish(stage: StageFinish): void;
  /** Asked once per dispatch: `false` (nothing would record its stages) spares the governor the hook calls. */
  enabled(): boolean;
}

/** Structurally a budget ledger's `snapshot()` (a2a-governance `BudgetSnapshot`): the fields the gauge reads. */
export interface BudgetView {
  snapshot(): {
    readonly limits: { readonly usd?: number | undefined; readonly tokens?: number | undefined };
    readonly window: { readonly usd: number; readonly tokens: number } | undefined;
    readonly reserved: { readonly usd: number; readonly tokens: number };
  };
}

/** Structurally a push sender's `PushDeliveryEvent` (a2a-server-express): its `type`. */
export interface PushEvent {
  readonly type: string;
}

/** Structurally the client's `OutgoingCall` (a2a-client). */
export interface CallStart {
  readonly method: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly headers: Record<string, string>;
}

/** Structurally the client's `CallOutcome` (a2a-client). */
export interface CallEnd {
  readonly headers: Readonly<Record<string, string>>;
  readonly ok: boolean;
  readonly error?: unknown;
}

/** Structurally the client's `Interceptors` (a2a-client): the two operation-level hooks. */
export interface CallInterceptors {
  beforeCall: (call: CallStart) => void;
  afterCall: (outcome: CallEnd) => void;
}
