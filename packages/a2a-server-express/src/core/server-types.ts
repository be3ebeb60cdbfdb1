import type { A2AError, A2ARequestMap, AgentCard, SendMessageRequest, StreamResponse, Task } from '@a2aplane/a2a-types';
import type { AgentExecutor, TaskContextLike } from '../agent/executor.js';
import type { TaskEventBus } from '../bus/task-event-bus.js';
import type { TaskStore } from '../store/task-store.js';
import type { InputLimits } from './input-limits.js';
import type { Authenticator, CoreRequest, CoreResponse, Principal, PushSender, RateLimiter, WebhookUrlCheck } from './types.js';
import type { ServerInstrumentation } from './instrumentation.js';
import type { SkillScopeRule } from '../auth/skill-scopes.js';

/** Structurally the `GovernedTask` of `@a2aplane/a2a-governance`. */
export interface GovernedTaskLike {
  readonly context: TaskContextLike;
  /** Aborts on a limit: a `POLICY_VIOLATION` or `BUDGET_EXCEEDED` reason ends the task FAILED. */
  readonly signal: AbortSignal;
  /**
   * True when `signal` can never abort (the governor's shared signal for a task without mid-task
   * limits or caller signal): the server then does not listen to it. Absent: it is listened to.
   */
  readonly signalNeverAborts?: boolean;
  /**
   * May return a limit `A2AError` (a budget cut), or a promise of one (a shared ledger): the task
   * then ends FAILED with it. Other results are ignored.
   */
  meterTokens(tokens: number): unknown;
  /** USD reported by the executor while it runs (`reportUsage`), checked against cost limits; as `meterTokens`. */
  meterUsd?(usd: number): unknown;
  finish(actual: { usd?: number; tokens?: number }): Promise<void>;
}

/**
 * The governance plug-in: structurally the `Governor` of `@a2aplane/a2a-governance` (pass the
 * Governor itself, or one object of the same interface). The server calls `readTaskContext` on
 * every SendMessage and hands the lineage to `admit`, so no combination of options can leave the
 * recursion guard without the incoming context. Both are called as methods (`this` is kept).
 */
export interface GovernanceOptions {
  admit(input: {
    /** The verified AgentID when the principal has one, else the principal id, else `anonymous`. */
    caller: string;
    /** `Principal.agentId`: set only when the authenticator verified the caller holds that agent's key. */
    callerAgentId?: string;
    /** `Principal.scopes`: the OAuth 2 scopes the caller's token grants (already checked against the skill). */
    callerScopes?: readonly string[];
    skill: string;
    incoming?: TaskContextLike;
    parentTaskId?: string;
    /** The trace a fresh root context joins (see `ServerInstrumentation.traceId`). */
    traceId?: string;
    estimatedCostUsd?: number;
    signal?: AbortSignal;
  }): Promise<GovernedTaskLike>;
  /** Reads the sender's lineage from `message.metadata` (the Governor's `readTaskContext`). */
  readTaskContext(
    metadata: Record<string, unknown> | undefined,
  ): { ok: true; context: TaskContextLike | undefined } | { ok: false; error: A2AError };
}

export interface A2AServerOptions {
  card: AgentCard;
  executor: AgentExecutor;
  /** Tasks, push configs and send keys. Default: an `InMemoryTaskStore` of this server alone. */
  store?: TaskStore;
  /**
   * Task events: the `Last-Event-ID` log, live fan-out and cancel fan-out. Replicas that share a
   * store share a bus too. Default: an in-memory bus of this server alone.
   */
  eventBus?: TaskEventBus;
  /** The card returned by GetExtendedAgentCard to authenticated callers. */
  extendedCard?: AgentCard | ((principal: Principal) => AgentCard | Promise<AgentCard>);
  authenticate?: Authenticator;
  rateLimiter?: RateLimiter;
  pushSender?: PushSender;
  /**
   * Vets the URL of a push config when it is created or sent inline in SendMessage (SSRF, spec
   * §13.2). Default: the push sender's own check (`pushSender.checkUrl`), else `checkWebhookUrl`
   * with its strict defaults (https only; loopback, private, link-local and metadata hosts
   * refused). `false` turns the check off (the push sender still vets every delivery).
   */
  checkWebhookUrl?: WebhookUrlCheck | false;
  governance?: GovernanceOptions;
  /**
   * OAuth scope rules of the operator (beside each skill's `securityRequirements` on the card): a
   * call to a skill a rule names needs every scope of that rule (`materializeConfig(...).scopeRules`
   * of a2a-governance's `[[scopes.rules]]`). Default none.
   */
  skillScopeRules?: readonly SkillScopeRule[];
  /** Picks the skill of a message; default `message.metadata.skillId`, then the card's first skill. */
  resolveSkill?: (request: SendMessageRequest) => string | undefined;
  /** Events buffered per stream subscriber before it is dropped as a slow consumer. Default 512. */
  subscriberBufferSize?: number;
  /**
   * Where executor failures, protocol violations of the executor and unexpected errors are reported (never to the
   * caller). Default: one line per failure on stderr (`console.error`), with the error's stack; `false` reports
   * nowhere.
   */
  onError?: ((message: string, error?: unknown) => void) | false;
  /**
   * Bounds on the shape of request params (nesting depth, string length, array and object size),
   * checked before anything else reads them; a request over them is `InvalidParamsError`.
   * Default `{ maxDepth: 64, maxStringLength: 1_048_576, maxItems: 10_000 }`.
   */
  inputLimits?: InputLimits;
  /** Tracing and metrics (`createServerInstrumentation` of `@a2aplane/a2a-otel`). Default: none. */
  instrumentation?: ServerInstrumentation;
}

export interface InProcessStreamOptions {
  context?: TaskContextLike;
  signal?: AbortSignal;
  principal?: Principal;
}

export interface A2AServer {
  readonly card: AgentCard;
  readonly store: TaskStore;
  readonly eventBus: TaskEventBus;
  /** Serves one request. Never rejects: failures come back as `{ kind: 'error' }`. */
  handle(request: CoreRequest): Promise<CoreResponse>;
  /** The SendStreamingMessage pipeline without HTTP (a `MessageStreamSource`). Throws A2AErrors. */
  stream(request: SendMessageRequest, options?: InProcessStreamOptions): AsyncIterable<StreamResponse>;
  /** CancelTask without HTTP, for a task started with `stream` (the `cancel` of a `MessageStreamSource`). Throws A2AErrors. */
  cancel(params: A2ARequestMap['CancelTask'], options?: { principal?: Principal }): Promise<Task>;
  /** Live task runtimes and attached stream subscribers, for health checks and leak tests. */
  stats(): { liveTasks: number; subscribers: number };
  close(): Promise<void>;
}
