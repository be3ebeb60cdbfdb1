import {
  A2A_PROTOCOL_VERSION,
  A2AError,
  type A2AMethod,
  type A2ARequestMap,
  type AgentCard,
  AgentCardSchema,
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  InternalError,
  InvalidAgentResponseError,
  InvalidParamsError,
  isA2AMethod,
  isInterruptedTaskState,
  isTerminalTaskState,
  isTraceId,
  type ListTasksResponse,
  type Message,
  MethodNotFoundError,
  parseOperationParams,
  parseWith,
  PushNotificationNotSupportedError,
  RateLimitedError,
  type SendMessageRequest,
  type StreamResponse,
  type Task,
  TaskNotCancelableError,
  TaskNotFoundError,
  type TaskPushNotificationConfig,
  UnauthenticatedError,
  UnsupportedOperationError,
  VersionNotSupportedError,
} from '@a2aplane/a2a-types';
import type { AgentExecutor, EventSink, RequestContext, TaskContextLike } from '../agent/executor.js';
import { isoNow } from '../agent/iso-now.js';
import { InMemoryTaskStore } from '../store/in-memory-task-store.js';
import { type SendKey, type TaskKey, type TaskStore, taskMapKey } from '../store/task-store.js';
import { onCallerGone } from './caller-gone.js';
import { EventQueue } from './event-queue.js';
import { fastParseSendMessageRequest } from './event-validation.js';
import { ExecutionSignal } from './execution-signal.js';
import { findInputLimitViolation, type InputLimits, resolveInputLimits } from './input-limits.js';
import type { ServerInstrumentation } from './instrumentation.js';
import { ExecutorRequestContext } from './request-context.js';
import { type Listener, type RuntimeSignal, TaskRuntime } from './task-runtime.js';
import type { AuthenticationRequest, Authenticator, Principal, PushSender, RateLimiter, StreamEvent, WebhookUrlCheck } from './types.js';

/** Structurally the `GovernedTask` of `@a2aplane/a2a-governance`. */
export interface GovernedTaskLike {
  readonly context: TaskContextLike;
  /** Aborts on a limit: a `POLICY_VIOLATION` or `BUDGET_EXCEEDED` reason ends the task FAILED. */
  readonly signal: AbortSignal;
  /** May return a limit `A2AError` (a budget cut): the task then ends FAILED with it. Other results are ignored. */
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
  store?: TaskStore;
  /** The card returned by GetExtendedAgentCard to authenticated callers. */
  extendedCard?: AgentCard | ((principal: Principal) => AgentCard | Promise<AgentCard>);
  authenticate?: Authenticator;
  rateLimiter?: RateLimiter;
  pushSender?: PushSender;
  checkWebhookUrl?: WebhookUrlCheck;
  governance?: GovernanceOptions;
  /** Picks the skill of a message; default `message.metadata.skillId`, then the card's first skill. */
  resolveSkill?: (request: SendMessageRequest) => string | undefined;
  /** Events buffered per stream subscriber before it is dropped as a slow consumer. Default 512. */
  subscriberBufferSize?: number;
  /** Where protocol violations of the executor and unexpected errors are reported. Default: none. */
  onError?: (message: string, error?: unknown) => void;
  /**
   * Bounds on the shape of request params (nesting depth, string length, array and object size),
   * checked before anything else reads them; a request over them is `InvalidParamsError`.
   * Default `{ maxDepth: 64, maxStringLength: 1_048_576, maxItems: 10_000 }`.
   */
  inputLimits?: InputLimits;
  /** Tracing and metrics (`createServerInstrumentation` of `@a2aplane/a2a-otel`). Default: none. */
  instrumentation?: ServerInstrumentation;
}

/** A binding-neutral request. */
export interface CoreRequest {
  /** The A2A method name (v1.0). */
  method: string;
  /** Untrusted params; the core validates them. */
  params: unknown;
  /** Raw `A2A-Version` (header or query); `undefined` when the client sent none. */
  version?: string | undefined;
  /** Raw `A2A-Extensions` values. */
  extensions?: string | readonly string[] | undefined;
  /** An already authenticated principal; otherwise `auth` goes to the authenticator. */
  principal?: Principal | undefined;
  auth?: AuthenticationRequest | undefined;
  /** Rate-limit key for anonymous callers (such as the remote address). */
  clientKey?: string | undefined;
  /** The `Last-Event-ID` of a SubscribeToTask. */
  lastEventId?: string | undefined;
  /** Aborts when the caller goes away: a blocking SendMessage stops waiting (the task goes on). */
  signal?: AbortSignal | undefined;
}

export type CoreResponse =
  | { kind: 'result'; result: unknown }
  | { kind: 'stream'; events: AsyncIterable<StreamEvent> }
  | { kind: 'error'; error: A2AError };

export interface InProcessStreamOptions {
  context?: TaskContextLike;
  signal?: AbortSignal;
  principal?: Principal;
}

export interface A2AServer {
  readonly card: AgentCard;
  readonly store: TaskStore;
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

interface Caller {
  principal: Principal | undefined;
  owner: string;
  version: string;
  extensions: string[];
}

/** Normalises an unknown thrown value into a wire error that leaks nothing. */
export function toA2AError(error: unknown): A2AError {
  if (A2AError.isInstance(error)) return error as A2AError;
  return new InternalError();
}

function splitExtensions(raw: string | readonly string[] | undefined): string[] {
  if (raw === undefined) return [];
  const values = typeof raw === 'string' ? [raw] : raw;
  return values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
}

/** `A2A-Version` negotiation (spec §3.6.2): missing means 0.3; `1.0`, `1` and `0.3` are served. */
export function negotiateVersion(raw: string | undefined): { ok: true; version: string } | { ok: false; error: A2AError } {
  const value = raw?.trim();
  if (value === undefined || value === '') return { ok: true, version: '0.3' };
  if (value === '1.0' || value === '1') return { ok: true, version: A2A_PROTOCOL_VERSION };
  if (value === '0.3') return { ok: true, version: '0.3' };
  return {
    ok: false,
    error: new VersionNotSupportedError({
      message: `A2A-Version ${value.slice(0, 16)} is not supported; supported: ${A2A_PROTOCOL_VERSION}, 0.3`,
      metadata: { supportedVersions: `${A2A_PROTOCOL_VERSION},0.3` },
    }),
  };
}

function trimHistory(task: Task, historyLength: number | undefined): Task {
  if (historyLength === undefined || task.history === undefined) return task;
  if (historyLength === 0) {
    const { history: _omit, ...rest } = task;
    return rest;
  }
  return { ...task, history: task.history.slice(-historyLength) };
}

interface ExecutionExtra {
  context?: TaskContextLike;
  signal?: AbortSignal;
  /** The id of a new task, claimed with its send key before the task starts. */
  taskId?: string;
}
const NO_EXTRA: ExecutionExtra = {};
const OK = { ok: true } as const;

interface StartedExecution {
  runtime: TaskRuntime;
  detach: () => void;
}

/** The brand a2a-governance puts on its shared never-aborting signal. */
const NEVER_ABORTS = Symbol.for('@a2aplane/a2a-governance/neverAborts');

const isFinal = (task: Task): boolean => isTerminalTaskState(task.status.state) || isInterruptedTaskState(task.status.state);

/** Creates the framework-agnostic A2A server core; bind it with `createNodeHttpHandler` or `a2aExpress`. */
export function createA2AServer(options: A2AServerOptions): A2AServer {
  if (typeof options?.executor?.execute !== 'function') {
    throw new TypeError(`expected executor with an execute function, got ${typeof options?.executor}`);
  }
  const governance = options.governance;
  if (governance !== undefined && (typeof governance?.admit !== 'function' || typeof governance.readTaskContext !== 'function')) {
    // A governor without readTaskContext would silently run without the recursion guard's input.
    throw new TypeError(
      `expected governance to be a Governor (admit and readTaskContext functions), got ${governance === null ? 'null' : `admit: ${typeof governance?.admit}, readTaskContext: ${typeof governance?.readTaskContext}`}`,
    );
  }
  const checked = parseWith(AgentCardSchema, options.card);
  if (!checked.success) throw new TypeError(`expected a valid AgentCard, got: ${checked.error.message}`);
  const card = options.card;
  const store = options.store ?? new InMemoryTaskStore();
  const bufferSize = options.subscriberBufferSize ?? 512;
  const reportError = options.onError;
  // A throwing `onError` must not turn a reported failure into an unhandled one.
  const onError = (message: string, error?: unknown): void => {
    try {
      reportError?.(message, error);
    } catch {
      // nothing left to report to
    }
  };
  const inputLimits = resolveInputLimits(options.inputLimits);
  /** `InvalidParamsError` when params exceed the input limits (an iterative walk: it cannot overflow itself). */
  const checkInputShape = (params: unknown): void => {
    const violation = findInputLimitViolation(params, inputLimits);
    if (violation !== undefined) throw new InvalidParamsError({ message: `Request params exceed the input limits: ${violation}` });
  };
  const runtimes = new Map<string, TaskRuntime>();
  const requiredExtensions = (card.capabilities.extensions ?? []).filter((e) => e.required && e.uri).map((e) => e.uri as string);
  const deps = { store, pushSender: options.pushSender, onAgentError: (message: string) => onError(message) };
  const instrumentation = options.instrumentation;

  const releaseIfIdle = (runtime: TaskRuntime): void => {
    if (runtime.idle && runtimes.get(runtime.mapKey) === runtime) runtimes.delete(runtime.mapKey);
  };

  /** The stored task of `caller`, or TaskNotFoundError (also for tasks of another principal, §7.5). */
  async function loadOwned(key: TaskKey, caller: Caller): Promise<Task> {
    const live = runtimes.get(taskMapKey(key));
    if (live?.task && live.owner === caller.owner) return live.task;
    const record = await store.get(key);
    if (!record || record.owner !== caller.owner) throw new TaskNotFoundError({ metadata: { taskId: key.taskId.slice(0, 128) } });
    return record.task;
  }

  async function runtimeFor(key: TaskKey, caller: Caller): Promise<TaskRuntime> {
    const existing = runtimes.get(taskMapKey(key));
    if (existing) {
      if (existing.owner !== caller.owner || !existing.task)
        throw new TaskNotFoundError({ metadata: { taskId: key.taskId.slice(0, 128) } });
      return existing;
    }
    const task = await loadOwned(key, caller);
    const runtime = new TaskRuntime(key, caller.owner, task.contextId ?? '', deps, task);
    runtimes.set(runtime.mapKey, runtime);
    return runtime;
  }

  async function resolveCaller(request: CoreRequest): Promise<Caller> {
    const negotiated = negotiateVersion(request.version);
    if (!negotiated.ok) throw negotiated.error;
    const takeToken = (key: string): void => {
      const verdict = options.rateLimiter?.take(key);
      if (verdict && !verdict.ok) throw new RateLimitedError({ retryAfterSeconds: verdict.retryAfterSeconds });
    };
    const clientKey = `client:${request.clientKey ?? 'anonymous'}`;
    let principal = request.principal;
    if (!principal && options.authenticate && request.auth) {
      try {
        principal = await options.authenticate(request.auth);
      } catch (error) {
        // Failed logins spend the client's tokens, so credentials cannot be guessed at full speed.
        takeToken(clientKey);
        throw A2AError.isInstance(error) ? error : new UnauthenticatedError();
      }
    }
    takeToken(principal ? `principal:${principal.id}` : clientKey);
    const extensions = splitExtensions(request.extensions);
    const missing = requiredExtensions.filter((uri) => !extensions.includes(uri));
    if (missing.length > 0) {
      throw new ExtensionSupportRequiredError({
        message: `This agent requires the extension(s): ${missing.join(', ')}`,
        metadata: { extensions: missing.join(',') },
      });
    }
    return { principal, owner: principal?.id ?? '', version: negotiated.version, extensions };
  }

  function chooseSkill(params: SendMessageRequest): string | undefined {
    const custom = options.resolveSkill?.(params);
    if (custom) return custom;
    const fromMetadata = params.message.metadata?.skillId;
    if (typeof fromMetadata === 'string' && fromMetadata !== '') return fromMetadata;
    return card.skills[0]?.id;
  }

  /** Drops runtimes nobody uses any more (after a request failed half-way). */
  const sweepIdle = (): void => {
    for (const runtime of [...runtimes.values()]) releaseIfIdle(runtime);
  };

  /**
   * Starts (or continues) a task: capability checks, governance admission, then the executor
   * in the background. The returned runtime already has `listener` attached, so no event is missed.
   */
  async function startExecution(
    params: SendMessageRequest,
    caller: Caller,
    listener: Listener,
    extra: ExecutionExtra = NO_EXTRA,
  ): Promise<StartedExecution> {
    try {
      return await admitAndLaunch(params, caller, listener, extra);
    } catch (error) {
      sweepIdle();
      throw error;
    }
  }

  async function admitAndLaunch(
    params: SendMessageRequest,
    caller: Caller,
    listener: Listener,
    extra: ExecutionExtra,
  ): Promise<StartedExecution> {
    const tenant = params.tenant ?? '';
    const message = params.message;
    const inlinePush = params.configuration?.taskPushNotificationConfig;
    if (inlinePush && !card.capabilities.pushNotifications) throw new PushNotificationNotSupportedError();
    if (inlinePush) await vetWebhookUrl(inlinePush.url);
    let runtime: TaskRuntime;
    let existingTask: Task | undefined;
    if (message.taskId) {
      runtime = await runtimeFor({ tenant, taskId: message.taskId }, caller);
      existingTask = runtime.task as Task;
      if (isTerminalTaskState(existingTask.status.state)) {
        throw new UnsupportedOperationError({
          message: 'The task is in a terminal state and cannot accept messages',
          metadata: { taskId: existingTask.id },
        });
      }
      if (runtime.running)
        throw new UnsupportedOperationError({ message: 'The task is still running', metadata: { taskId: existingTask.id } });
      if (message.contextId && existingTask.contextId && message.contextId !== existingTask.contextId) {
        throw new InvalidParamsError({ message: 'message.contextId does not match the task' });
      }
    } else {
      const taskId = extra.taskId ?? globalThis.crypto.randomUUID();
      runtime = new TaskRuntime({ tenant, taskId }, caller.owner, message.contextId ?? globalThis.crypto.randomUUID(), deps);
      runtime.pendingUserMessage = message;
    }

    // Governance before anything runs: lineage, then budget, recursion and policy.
    const skillId = chooseSkill(params);
    let governed: GovernedTaskLike | undefined;
    let taskContext = extra.context;
    if (governance) {
      if (taskContext === undefined) {
        const read = governance.readTaskContext(message.metadata);
        if (!read.ok) throw read.error;
        taskContext = read.context;
      }
      // Policy, concurrency buckets and budgets key on the verified AgentID when there is one.
      const principal = caller.principal;
      const agentId = principal?.agentId;
      const input: Parameters<GovernanceOptions['admit']>[0] = {
        caller: agentId ?? principal?.id ?? 'anonymous',
        skill: skillId ?? 'default',
      };
      if (agentId !== undefined) input.callerAgentId = agentId;
      if (taskContext) {
        input.incoming = taskContext;
        // The sender names its delegating task there; the child context keeps it.
        if (taskContext.parentTaskId !== undefined) input.parentTaskId = taskContext.parentTaskId;
      } else if (instrumentation?.traceId) {
        const traceId = instrumentation.traceId();
        if (traceId !== undefined && isTraceId(traceId)) input.traceId = traceId;
      }
      if (extra.signal) input.signal = extra.signal;
      governed = await governance.admit(input);
      taskContext = governed.context;
    }
    try {
      return await launch(params, caller, listener, extra, runtime, existingTask, skillId, governed, taskContext);
    } catch (error) {
      await governed?.finish({}).catch(() => undefined);
      throw error;
    }
  }

  /**
   * The user message as the executor sees it. Object.assign and two stores rather than an object
   * spread with extra keys: same keys in the same order, but in profiles of the governed bench
   * server the spread cost ~20 µs of CPU per request (V8's reason not pinned down).
   */
  function messageWithIds(message: Message, taskId: string, contextId: string): Message {
    const copy = Object.assign({}, message);
    copy.taskId = taskId;
    copy.contextId = contextId;
    return copy;
  }

  async function launch(
    params: SendMessageRequest,
    caller: Caller,
    listener: Listener,
    extra: ExecutionExtra,
    runtime: TaskRuntime,
    existingTask: Task | undefined,
    skillId: string | undefined,
    governed: GovernedTaskLike | undefined,
    taskContext: TaskContextLike | undefined,
  ): Promise<StartedExecution> {
    // The executor's signal follows cancel, the governor and the caller. It is made on first
    // read (most executors never look at it, and an AbortSignal is costly to make), with
    // listeners (not AbortSignal.any) so they can be removed when the task ends: a governor
    // may hand every task the same long-lived never-aborting signal.
    const executionSignal = new ExecutionSignal(governed?.signal, extra.signal);
    const contextId = existingTask?.contextId ?? runtime.contextId;
    const taskId = runtime.key.taskId;
    const requestContext = new ExecutorRequestContext(
      messageWithIds(params.message, taskId, contextId),
      existingTask,
      taskId,
      contextId,
      caller.principal,
      runtime.key.tenant,
      caller.version,
      caller.extensions,
      skillId,
      params.configuration?.acceptedOutputModes,
      taskContext,
      executionSignal,
    );
    const usage = { tokens: 0, usd: 0 };
    // Methods, not arrow functions: they need no `this`, so an executor may still pass them around.
    const sink: EventSink = {
      publish(event) {
        runtime.publishFromAgent(event);
      },
      reportUsage(reported) {
        if (typeof reported?.tokens === 'number' && reported.tokens > 0) {
          usage.tokens += reported.tokens;
          endForLimit(runtime, governed?.meterTokens(reported.tokens), contextId);
        }
        if (typeof reported?.usd === 'number' && reported.usd > 0) {
          usage.usd += reported.usd;
          endForLimit(runtime, governed?.meterUsd?.(reported.usd), contextId);
        }
      },
    };
    const inlinePush = params.configuration?.taskPushNotificationConfig;
    if (inlinePush) runtime.pendingPushConfig = { ...inlinePush, id: inlinePush.id ?? globalThis.crypto.randomUUID(), taskId };

    runtime.running = true;
    runtime.invalid = false;
    runtime.messageResponse = undefined;
    runtimes.set(runtime.mapKey, runtime);
    const detach = runtime.addListener(listener);
    runtime.execution = { signal: executionSignal, context: requestContext, sink };

    if (existingTask) {
      // A continuation: the new user message joins the history before the executor runs.
      try {
        await runtime.enqueue(async () => {
          const current = runtime.task as Task;
          const next = { ...current, history: [...(current.history ?? []), requestContext.message] };
          await store.upsert({ tenant: runtime.key.tenant, owner: caller.owner, task: next, updatedAt: Date.now() });
          runtime.task = next;
        });
      } catch (error) {
        // The store refused: nothing runs, and the task is not left marked as running.
        runtime.running = false;
        runtime.execution = undefined;
        detach();
        throw error;
      }
    }

    const stopWatching = watchRun(runtime, governed?.signal, extra.signal, contextId);
    // `execute` catches everything itself; the catch here is the last line against an unhandled rejection.
    execute(runtime, requestContext, sink, usage, governed, executionSignal, stopWatching).catch((error: unknown) =>
      onError('task execution failed', error),
    );
    return { runtime, detach };
  }

  /**
   * What ends a run from outside, whatever the executor does with its signal: a governance limit
   * (`POLICY_VIOLATION`, `BUDGET_EXCEEDED`) ends the task FAILED with that ErrorInfo in its status
   * message; an in-process caller that aborts (a dispatcher's local executor) cancels it, as
   * CancelTask would. Returns the function that stops watching.
   */
  function watchRun(
    runtime: TaskRuntime,
    governedSignal: AbortSignal | undefined,
    caller: AbortSignal | undefined,
    contextId: string,
  ): () => void {
    // A governed task without mid-task limits shares one never-aborting signal (marked by
    // a2a-governance): listening to it per task would cost a listener for nothing.
    const limits =
      governedSignal === undefined || (governedSignal as unknown as Record<symbol, unknown>)[NEVER_ABORTS] === true
        ? undefined
        : governedSignal;
    const onLimit = (): void => {
      // The governed signal also follows the caller's: a caller abort is a cancel, not a failure.
      if (caller?.aborted) return;
      endForLimit(runtime, limits?.reason, contextId);
    };
    const onCaller = (): void => {
      // Already ended (say, canceled through `cancel` just before the caller's signal followed).
      if (runtime.task && isTerminalTaskState(runtime.task.status.state)) return;
      void cancelRuntime(runtime).catch((error: unknown) => onError('canceling a task on caller abort failed', error));
    };
    if (caller?.aborted) onCaller();
    else if (limits?.aborted) onLimit();
    limits?.addEventListener('abort', onLimit);
    caller?.addEventListener('abort', onCaller);
    return () => {
      limits?.removeEventListener('abort', onLimit);
      caller?.removeEventListener('abort', onCaller);
    };
  }

  /**
   * A governance limit (`POLICY_VIOLATION`, `BUDGET_EXCEEDED`; other reasons are ignored) stops
   * the executor and ends the task FAILED, once.
   */
  function endForLimit(runtime: TaskRuntime, reason: unknown, contextId: string): void {
    if (!A2AError.isInstance(reason) || (reason.reason !== 'POLICY_VIOLATION' && reason.reason !== 'BUDGET_EXCEEDED')) return;
    if (runtime.task && isTerminalTaskState(runtime.task.status.state)) return;
    runtime.execution?.signal.abort(reason);
    void runtime
      .enqueue(() => failForLimit(runtime, reason, contextId))
      .catch((error: unknown) => onError('ending a task on a limit failed', error));
  }

  /** In the task's write queue: the task ends FAILED with the limit's ErrorInfo (creating it if the executor had not yet). */
  async function failForLimit(runtime: TaskRuntime, error: A2AError, contextId: string): Promise<void> {
    const task = runtime.task;
    if (runtime.messageResponse || (task && isTerminalTaskState(task.status.state))) return;
    const taskId = runtime.key.taskId;
    const taskContextId = task?.contextId ?? contextId;
    const status = {
      state: 'TASK_STATE_FAILED' as const,
      timestamp: isoNow(),
      message: {
        messageId: globalThis.crypto.randomUUID(),
        role: 'ROLE_AGENT' as const,
        taskId,
        contextId: taskContextId,
        parts: [{ text: error.message }, { data: error.toErrorInfo() as unknown as Record<string, unknown> }],
      },
    };
    await runtime.apply(
      task ? { statusUpdate: { taskId, contextId: taskContextId, status } } : { task: { id: taskId, contextId: taskContextId, status } },
    );
  }

  /** Runs the executor in the background, then ends the task's run and settles governance. */
  async function execute(
    runtime: TaskRuntime,
    requestContext: RequestContext,
    sink: EventSink,
    usage: { tokens: number; usd: number },
    governed: GovernedTaskLike | undefined,
    executionSignal: ExecutionSignal,
    stopWatching: () => void,
  ): Promise<void> {
    let failure: unknown;
    const observer = instrumentation?.execution(requestContext);
    try {
      if (observer === undefined) await options.executor.execute(requestContext, sink);
      else await observer.run(() => options.executor.execute(requestContext, sink));
    } catch (error) {
      failure = error;
      onError('executor failed', error);
    }
    try {
      await runtime.enqueue(() => endRun(runtime, failure, requestContext.contextId));
    } catch (error) {
      // The store refused even the final write: the run still ends, and whoever waits hears why.
      onError('ending the task failed', error);
      runtime.failListeners(toA2AError(error));
      runtime.running = false;
      runtime.execution = undefined;
      runtime.endListeners();
    }
    stopWatching();
    executionSignal.unfollow();
    if (governed) {
      try {
        await governed.finish({ tokens: usage.tokens, usd: usage.usd });
      } catch (error) {
        onError('governance finish failed', error);
      }
    }
    if (observer !== undefined) {
      const outcome = { task: runtime.task, message: runtime.messageResponse !== undefined, usage };
      observer.end(failure === undefined ? outcome : { ...outcome, error: failure });
    }
    releaseIfIdle(runtime);
  }

  /** In the task's write queue, after the executor returned (or threw). */
  async function endRun(runtime: TaskRuntime, failure: unknown, contextId: string): Promise<void> {
    const task = runtime.task;
    if (failure !== undefined && task && !isTerminalTaskState(task.status.state)) {
      await runtime.apply({
        statusUpdate: {
          taskId: task.id,
          contextId: task.contextId ?? contextId,
          status: { state: 'TASK_STATE_FAILED', timestamp: isoNow() },
        },
      });
    } else if (!task && !runtime.messageResponse && !runtime.invalid) {
      runtime.failListeners(
        failure === undefined ? new InvalidAgentResponseError({ message: 'The agent produced no response' }) : toA2AError(failure),
      );
    }
    runtime.running = false;
    runtime.execution = undefined;
    runtime.endListeners();
  }

  /** Starts still between their send-key claim and their launch, by task map key: a repeat waits for them. */
  const pendingStarts = new Map<string, Promise<unknown>>();

  type SendClaim = { kind: 'claimed'; key: SendKey; taskId: string } | { kind: 'repeat'; runtime: TaskRuntime };

  /**
   * Idempotent SendMessage (spec §3.3.1): claims (tenant, caller, messageId) in the store for the
   * task this message starts or continues. A repeat gets the runtime of the original task instead.
   * A claim whose task is gone (evicted, or the reply was a Message and no task was made) is
   * taken over, so that message runs again.
   */
  async function claimSend(params: SendMessageRequest, caller: Caller): Promise<SendClaim> {
    const tenant = params.tenant ?? '';
    const key: SendKey = { tenant, owner: caller.owner, messageId: params.message.messageId };
    const taskId = params.message.taskId ?? globalThis.crypto.randomUUID();
    for (let attempt = 0; ; attempt++) {
      const held = await store.claimSendKey(key, taskId);
      if (held === undefined) return { kind: 'claimed', key, taskId };
      const taskKey = { tenant, taskId: held };
      await pendingStarts.get(taskMapKey(taskKey))?.catch(() => undefined);
      const live = runtimes.get(taskMapKey(taskKey));
      if (live && live.owner === caller.owner) return { kind: 'repeat', runtime: live };
      const original = await runtimeFor(taskKey, caller).catch((error: unknown) => {
        if (TaskNotFoundError.isInstance(error)) return undefined;
        throw error;
      });
      if (original) return { kind: 'repeat', runtime: original };
      if (attempt > 0) throw new UnsupportedOperationError({ message: 'The message is already being handled' });
      await store.releaseSendKey(key, held);
    }
  }

  /** Runs `start` for a claimed send, giving the key back when the task never started. */
  async function startClaimed<T>(claim: { key: SendKey; taskId: string }, tenant: string, start: () => Promise<T>): Promise<T> {
    const mapKey = taskMapKey({ tenant, taskId: claim.taskId });
    const started = start();
    pendingStarts.set(mapKey, started);
    try {
      return await started;
    } catch (error) {
      await store.releaseSendKey(claim.key, claim.taskId).catch(() => undefined);
      throw error;
    } finally {
      if (pendingStarts.get(mapKey) === started) pendingStarts.delete(mapKey);
    }
  }

  /** Waits (blocking sends) until the runtime's task is final, then answers like SendMessage. */
  async function answerSend(
    params: SendMessageRequest,
    request: CoreRequest,
    attach: (listener: Listener) => Promise<{ runtime: TaskRuntime; detach: () => void }>,
  ): Promise<unknown> {
    const blocking = params.configuration?.returnImmediately !== true;
    let resolveOutcome!: (value: { ok: true } | { ok: false; error: unknown }) => void;
    const outcome = new Promise<{ ok: true } | { ok: false; error: unknown }>((resolve) => {
      resolveOutcome = resolve;
    });
    const { runtime, detach } = await attach((signal) => {
      if (signal.type === 'error') resolveOutcome({ ok: false, error: signal.error });
      else if (signal.type === 'end' || signal.final || !blocking) resolveOutcome(OK);
    });
    // A caller that goes away stops the wait (not the task): the listener is released at once.
    const stopListening = onCallerGone(request, () =>
      resolveOutcome({ ok: false, error: new InternalError({ message: 'Request aborted' }) }),
    );
    const result = await outcome;
    stopListening();
    detach();
    releaseIfIdle(runtime);
    if (!result.ok) throw toA2AError(result.error);
    if (runtime.messageResponse) return { message: runtime.messageResponse };
    if (!runtime.task) throw new InvalidAgentResponseError({ message: 'The agent produced no response' });
    return { task: trimHistory(runtime.task, params.configuration?.historyLength) };
  }

  /** A repeat of a send: the original's answer, waiting for it while it still runs. */
  function answerRepeat(params: SendMessageRequest, request: CoreRequest, runtime: TaskRuntime): Promise<unknown> {
    return answerSend(params, request, async (listener) => {
      const settled = !runtime.running || runtime.messageResponse !== undefined || (runtime.task !== undefined && isFinal(runtime.task));
      if (settled || params.configuration?.returnImmediately === true) {
        listener({ type: 'end' });
        return { runtime, detach: () => undefined };
      }
      return { runtime, detach: runtime.addListener(listener) };
    });
  }

  async function sendMessage(params: SendMessageRequest, caller: Caller, request: CoreRequest): Promise<unknown> {
    const claim = await claimSend(params, caller);
    if (claim.kind === 'repeat') return answerRepeat(params, request, claim.runtime);
    return answerSend(params, request, (listener) =>
      startClaimed(claim, params.tenant ?? '', () => startExecution(params, caller, listener, { taskId: claim.taskId })),
    );
  }

  /** Turns runtime signals into a stream of SSE events; `seed` events go first. */
  function streamFrom(runtime: TaskRuntime, attach: (push: (signal: RuntimeSignal) => void) => () => void): AsyncIterable<StreamEvent> {
    let detach: () => void = () => undefined;
    const queue = new EventQueue<StreamEvent>(bufferSize, () => {
      detach();
      releaseIfIdle(runtime);
    });
    let closed = false;
    detach = attach((signal) => {
      if (closed) return;
      if (signal.type === 'event') {
        queue.push({ id: String(signal.seq), data: signal.event });
        if (signal.final) {
          closed = true;
          queue.end();
        }
      } else if (signal.type === 'end') {
        closed = true;
        queue.end();
      } else {
        closed = true;
        queue.fail(toA2AError(signal.error));
      }
    });
    return queue;
  }

  async function sendStreamingMessage(
    params: SendMessageRequest,
    caller: Caller,
    extra: ExecutionExtra = NO_EXTRA,
  ): Promise<AsyncIterable<StreamEvent>> {
    const claim = await claimSend(params, caller);
    if (claim.kind === 'repeat') return streamRepeat(claim.runtime);
    const buffered: RuntimeSignal[] = [];
    let forward: ((signal: RuntimeSignal) => void) | undefined;
    const { runtime, detach } = await startClaimed(claim, params.tenant ?? '', () =>
      startExecution(
        params,
        caller,
        (signal) => {
          if (forward) forward(signal);
          else buffered.push(signal);
        },
        { ...extra, taskId: claim.taskId },
      ),
    );
    return streamFrom(runtime, (push) => {
      forward = push;
      for (const signal of buffered.splice(0)) push(signal);
      return detach;
    });
  }

  /** A repeated streaming send: the original task as it is now, then its live events. */
  function streamRepeat(runtime: TaskRuntime): Promise<AsyncIterable<StreamEvent>> {
    return runtime.enqueue(async () => {
      const task = runtime.task;
      const message = runtime.messageResponse;
      const seed: RuntimeSignal | undefined = message
        ? { type: 'event', seq: 0, event: { message }, final: true }
        : task
          ? { type: 'event', seq: await store.lastSeq(runtime.key), event: { task }, final: isFinal(task) }
          : undefined;
      return streamFrom(runtime, (push) => {
        if (seed) push(seed);
        if (!runtime.running || (seed?.type === 'event' && seed.final)) {
          push({ type: 'end' });
          return () => undefined;
        }
        return runtime.addListener(push);
      });
    });
  }

  async function subscribe(
    params: A2ARequestMap['SubscribeToTask'],
    caller: Caller,
    lastEventId: string | undefined,
  ): Promise<AsyncIterable<StreamEvent>> {
    if (!card.capabilities.streaming) throw new UnsupportedOperationError({ message: 'Streaming is not supported by this agent' });
    const key = { tenant: params.tenant ?? '', taskId: params.id };
    const runtime = await runtimeFor(key, caller);
    let afterSeq: number | undefined;
    if (lastEventId !== undefined) {
      const n = Number(lastEventId);
      if (!/^\d{1,15}$/.test(lastEventId) || !Number.isSafeInteger(n))
        throw new InvalidParamsError({ message: 'Last-Event-ID must be an event id of this task' });
      afterSeq = n;
    }
    // Inside the task's write queue: snapshot + log read + attach happen between two writes.
    return runtime.enqueue(async () => {
      const task = runtime.task as Task;
      if (isTerminalTaskState(task.status.state) && afterSeq === undefined) {
        throw new UnsupportedOperationError({ message: 'The task is in a terminal state', metadata: { taskId: task.id } });
      }
      const seed: StreamEvent[] = [];
      let finalSeen = false;
      if (afterSeq === undefined) {
        seed.push({ id: String(await store.lastSeq(key)), data: { task } });
      } else {
        const log = await store.readEvents(key, afterSeq);
        const lastSeq = await store.lastSeq(key);
        if (afterSeq < lastSeq && (log.length === 0 || (log[0] as { seq: number }).seq > afterSeq + 1)) {
          // The log no longer reaches back to Last-Event-ID: send the whole task instead of a gap.
          seed.push({ id: String(lastSeq), data: { task } });
        } else {
          for (const entry of log) seed.push({ id: String(entry.seq), data: entry.event });
        }
        finalSeen = isFinal(task) && seed.length > 0;
        if (seed.length === 0 && isTerminalTaskState(task.status.state)) {
          throw new UnsupportedOperationError({ message: 'The task is in a terminal state', metadata: { taskId: task.id } });
        }
      }
      return streamFrom(runtime, (push) => {
        for (const event of seed) push({ type: 'event', seq: Number(event.id), event: event.data, final: false });
        if (finalSeen || (afterSeq !== undefined && isTerminalTaskState(task.status.state))) {
          push({ type: 'end' });
          return () => undefined;
        }
        return runtime.addListener(push);
      });
    });
  }

  const cancels = new WeakMap<TaskRuntime, Promise<void>>();

  /**
   * Stops a running execution (its signal, then `executor.cancel`) and publishes CANCELED unless
   * the task is terminal by then. One path for CancelTask and an in-process caller's abort.
   */
  function cancelRuntime(runtime: TaskRuntime, metadata?: Record<string, unknown>): Promise<void> {
    // One cancel at a time per runtime: a caller abort and a CancelTask share it.
    let running = cancels.get(runtime);
    if (running === undefined) {
      running = cancelOnce(runtime, metadata).finally(() => cancels.delete(runtime));
      cancels.set(runtime, running);
    }
    return running;
  }

  async function cancelOnce(runtime: TaskRuntime, metadata: Record<string, unknown> | undefined): Promise<void> {
    const hook = runtime.execution;
    if (hook) {
      hook.signal.abort(new TaskNotCancelableError({ message: 'The task was canceled' }));
      if (options.executor.cancel) {
        try {
          await options.executor.cancel(hook.context, hook.sink);
        } catch (error) {
          onError('executor cancel failed', error);
        }
      }
    }
    await runtime.enqueue(async () => {
      const current = runtime.task;
      if (!current || isTerminalTaskState(current.status.state)) return;
      await runtime.apply({
        statusUpdate: {
          taskId: current.id,
          contextId: current.contextId ?? runtime.contextId,
          status: { state: 'TASK_STATE_CANCELED', timestamp: new Date().toISOString() },
          ...(metadata ? { metadata } : {}),
        },
      });
    });
  }

  async function cancelTask(params: A2ARequestMap['CancelTask'], caller: Caller): Promise<Task> {
    const key = { tenant: params.tenant ?? '', taskId: params.id };
    const runtime = await runtimeFor(key, caller);
    try {
      const task = runtime.task as Task;
      // Spec §3.1.5 and the §3.3.2 table: a task in any terminal state, CANCELED included, is not cancelable.
      if (isTerminalTaskState(task.status.state)) throw new TaskNotCancelableError({ metadata: { taskId: task.id } });
      await cancelRuntime(runtime, params.metadata);
      const final = runtime.task as Task;
      if (final.status.state !== 'TASK_STATE_CANCELED') throw new TaskNotCancelableError({ metadata: { taskId: final.id } });
      return final;
    } finally {
      releaseIfIdle(runtime);
    }
  }

  async function listTasks(params: A2ARequestMap['ListTasks'], caller: Caller): Promise<ListTasksResponse> {
    const pageSize = params.pageSize ?? 50;
    const after = params.statusTimestampAfter === undefined ? undefined : Date.parse(params.statusTimestampAfter);
    const page = await store.list({
      tenant: params.tenant ?? '',
      owner: caller.owner,
      pageSize,
      ...(params.contextId === undefined ? {} : { contextId: params.contextId }),
      ...(params.status === undefined ? {} : { status: params.status }),
      ...(after === undefined ? {} : { statusTimestampAfter: after }),
      ...(params.pageToken ? { pageToken: params.pageToken } : {}),
    });
    if (!page) throw new InvalidParamsError({ message: 'pageToken is not valid' });
    const tasks = page.records.map(({ task }) => {
      let out = trimHistory(task, params.historyLength);
      if (params.includeArtifacts !== true && out.artifacts !== undefined) {
        const { artifacts: _omit, ...rest } = out;
        out = rest;
      }
      return out;
    });
    return { tasks, nextPageToken: page.nextPageToken, pageSize, totalSize: page.totalSize };
  }

  /** Every push config, created or inline in SendMessage, passes the same webhook URL check. */
  async function vetWebhookUrl(url: string): Promise<void> {
    if (!options.checkWebhookUrl) return;
    const verdict = await options.checkWebhookUrl(url);
    if (!verdict.ok) throw new InvalidParamsError({ message: `Webhook URL rejected: ${verdict.reason}`, metadata: { field: 'url' } });
  }

  function requirePush(): void {
    if (!card.capabilities.pushNotifications) throw new PushNotificationNotSupportedError();
  }

  async function createPushConfig(
    params: A2ARequestMap['CreateTaskPushNotificationConfig'],
    caller: Caller,
  ): Promise<TaskPushNotificationConfig> {
    requirePush();
    const key = { tenant: params.tenant ?? '', taskId: params.taskId };
    await loadOwned(key, caller);
    await vetWebhookUrl(params.url);
    const config = { ...params, id: params.id ?? globalThis.crypto.randomUUID() };
    await store.putPushConfig(key, config);
    return config;
  }

  async function getExtendedCard(caller: Caller): Promise<AgentCard> {
    if (!card.capabilities.extendedAgentCard) throw new UnsupportedOperationError({ message: 'This agent has no extended agent card' });
    if (!caller.principal) throw new UnauthenticatedError({ message: 'The extended agent card requires authentication' });
    const extended = options.extendedCard;
    if (!extended) throw new ExtendedAgentCardNotConfiguredError();
    return typeof extended === 'function' ? extended(caller.principal) : extended;
  }

  async function dispatch(method: A2AMethod, params: unknown, caller: Caller, request: CoreRequest): Promise<CoreResponse> {
    switch (method) {
      case 'SendMessage':
        return { kind: 'result', result: await sendMessage(params as SendMessageRequest, caller, request) };
      case 'SendStreamingMessage':
        if (!card.capabilities.streaming) throw new UnsupportedOperationError({ message: 'Streaming is not supported by this agent' });
        return { kind: 'stream', events: await sendStreamingMessage(params as SendMessageRequest, caller) };
      case 'GetTask': {
        const p = params as A2ARequestMap['GetTask'];
        const task = await loadOwned({ tenant: p.tenant ?? '', taskId: p.id }, caller);
        return { kind: 'result', result: trimHistory(task, p.historyLength) };
      }
      case 'ListTasks':
        return { kind: 'result', result: await listTasks(params as A2ARequestMap['ListTasks'], caller) };
      case 'CancelTask':
        return { kind: 'result', result: await cancelTask(params as A2ARequestMap['CancelTask'], caller) };
      case 'SubscribeToTask':
        try {
          return { kind: 'stream', events: await subscribe(params as A2ARequestMap['SubscribeToTask'], caller, request.lastEventId) };
        } catch (error) {
          sweepIdle();
          throw error;
        }
      case 'CreateTaskPushNotificationConfig':
        return { kind: 'result', result: await createPushConfig(params as A2ARequestMap['CreateTaskPushNotificationConfig'], caller) };
      case 'GetTaskPushNotificationConfig': {
        requirePush();
        const p = params as A2ARequestMap['GetTaskPushNotificationConfig'];
        const key = { tenant: p.tenant ?? '', taskId: p.taskId };
        await loadOwned(key, caller);
        const found = (await store.listPushConfigs(key)).find((c) => c.id === p.id);
        if (!found)
          throw new TaskNotFoundError({ message: 'Push notification config not found', metadata: { taskId: p.taskId.slice(0, 128) } });
        return { kind: 'result', result: found };
      }
      case 'ListTaskPushNotificationConfigs': {
        requirePush();
        const p = params as A2ARequestMap['ListTaskPushNotificationConfigs'];
        const key = { tenant: p.tenant ?? '', taskId: p.taskId };
        await loadOwned(key, caller);
        return { kind: 'result', result: { configs: await store.listPushConfigs(key), nextPageToken: '' } };
      }
      case 'DeleteTaskPushNotificationConfig': {
        requirePush();
        const p = params as A2ARequestMap['DeleteTaskPushNotificationConfig'];
        const key = { tenant: p.tenant ?? '', taskId: p.taskId };
        await loadOwned(key, caller);
        await store.deletePushConfig(key, p.id);
        return { kind: 'result', result: {} };
      }
      case 'GetExtendedAgentCard':
        return { kind: 'result', result: await getExtendedCard(caller) };
    }
  }

  async function handle(request: CoreRequest): Promise<CoreResponse> {
    try {
      if (!isA2AMethod(request.method)) {
        return { kind: 'error', error: new MethodNotFoundError({ metadata: { method: String(request.method).slice(0, 128) } }) };
      }
      const caller = await resolveCaller(request);
      checkInputShape(request.params);
      const method = request.method;
      if (method === 'SendMessage' || method === 'SendStreamingMessage') {
        // The hot path: a fast check that vouches for valid params, else zod decides below.
        const fast = fastParseSendMessageRequest(request.params ?? {});
        if (fast !== undefined) return await dispatch(method, fast, caller, request);
      }
      const parsed = parseOperationParams(method, request.params);
      if (!parsed.success) return { kind: 'error', error: new InvalidParamsError({ details: [{ ...parsed.error.toBadRequest() }] }) };
      return await dispatch(method, parsed.data, caller, request);
    } catch (error) {
      if (!A2AError.isInstance(error)) onError('request failed', error);
      return { kind: 'error', error: toA2AError(error) };
    }
  }

  /** The caller of an in-process call (`stream`, `cancel`). */
  const inProcessCaller = (principal: Principal | undefined): Caller => ({
    principal,
    owner: principal?.id ?? '',
    version: A2A_PROTOCOL_VERSION,
    extensions: [],
  });

  async function cancel(params: A2ARequestMap['CancelTask'], cancelOptions: { principal?: Principal } = {}): Promise<Task> {
    const parsed = parseOperationParams('CancelTask', params);
    if (!parsed.success) throw new InvalidParamsError({ details: [{ ...parsed.error.toBadRequest() }] });
    return cancelTask(parsed.data, inProcessCaller(cancelOptions.principal));
  }

  async function* stream(request: SendMessageRequest, streamOptions: InProcessStreamOptions = {}): AsyncIterable<StreamResponse> {
    checkInputShape(request);
    const parsed = parseOperationParams('SendStreamingMessage', request);
    if (!parsed.success) throw new InvalidParamsError({ details: [{ ...parsed.error.toBadRequest() }] });
    const caller = inProcessCaller(streamOptions.principal);
    const events = await sendStreamingMessage(parsed.data, caller, {
      ...(streamOptions.context ? { context: streamOptions.context } : {}),
      ...(streamOptions.signal ? { signal: streamOptions.signal } : {}),
    });
    for await (const event of events) yield event.data;
  }

  return {
    card,
    store,
    handle: instrumentation === undefined ? handle : (request) => instrumentation.operation(request, () => handle(request)),
    stream,
    cancel,
    stats() {
      let subscribers = 0;
      for (const runtime of runtimes.values()) subscribers += runtime.listenerCount;
      return { liveTasks: runtimes.size, subscribers };
    },
    async close() {
      for (const runtime of runtimes.values()) {
        runtime.execution?.signal.abort(new InternalError({ message: 'Server closed' }));
        runtime.endListeners();
      }
      runtimes.clear();
      await options.pushSender?.close();
    },
  };
}
