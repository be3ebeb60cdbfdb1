import {
  type Attributes,
  type Context,
  context,
  isSpanContextValid,
  type MeterProvider,
  metrics,
  type Span,
  SpanKind,
  type SpanOptions,
  SpanStatusCode,
  trace,
  type TracerProvider,
} from '@opentelemetry/api';
import {
  ATTR_BUDGET_CAP,
  ATTR_BUDGET_LIMIT,
  ATTR_BUDGET_OBSERVED,
  ATTR_CALLER_AGENT_ID,
  ATTR_CALLER_ID,
  ATTR_CONTEXT_ID,
  ATTR_COST_ESTIMATED_USD,
  ATTR_COST_USD,
  ATTR_CURRENCY,
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_AGENT_ID,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION,
  ATTR_GOVERNANCE_DECISION,
  ATTR_GOVERNANCE_DISPATCH_ID,
  ATTR_GOVERNANCE_REASON,
  ATTR_GOVERNANCE_STAGE,
  ATTR_LINEAGE_DEPTH,
  ATTR_LINEAGE_PARENT_TASK_ID,
  ATTR_LINEAGE_ROOT_AGENT_ID,
  ATTR_LINEAGE_TRACE_ID,
  ATTR_LINEAGE_VISITED_AGENTS,
  ATTR_OUTCOME,
  ATTR_PROTOCOL_VERSION,
  ATTR_PUSH_OUTCOME,
  ATTR_RPC_METHOD,
  ATTR_SKILL_ID,
  ATTR_TASK_ID,
  ATTR_TASK_STATE,
  ATTR_USAGE_TOKENS,
  operationSpanName,
} from './attributes.js';
import { createServerMetrics } from './metrics.js';
import type {
  BudgetView,
  ExecutionContext,
  ExecutionEnd,
  ExecutionObserverLike,
  OperationRequest,
  OperationResponse,
  PushEvent,
  StageFinish,
  StageHooks,
  StageStart,
} from './types.js';
import {
  contextManaged,
  createAttributeCache,
  createTracingCheck,
  INSTRUMENTATION_NAME,
  INSTRUMENTATION_VERSION,
  methodLabel,
  metricsLive,
  outcomeOf,
  rpcAttributes,
  traceIdOf,
  withRemoteParent,
} from './shared.js';

export interface ServerInstrumentationOptions {
  /** This agent's AgentID, recorded as `gen_ai.agent.id` on executor spans. */
  agentId?: string;
  /** This agent's name (say, its card's `name`): `gen_ai.agent.name` and the executor span's name. */
  agentName?: string;
  /** Default: the global tracer provider (a no-op until the application registers an SDK). */
  tracerProvider?: TracerProvider;
  /**
   * Default: the global meter provider at the time of this call (the metrics API has no proxy:
   * register the SDK's provider first, or pass it here).
   */
  meterProvider?: MeterProvider;
  /** The governance budget ledger: its remaining USD and tokens in the window are observed as gauges. */
  budget?: BudgetView;
}

/**
 * Structurally a2a-server-express's `ServerInstrumentation` (pass it as `createA2AServer({ instrumentation })`),
 * plus the hooks that feed it from governance and push.
 */
export interface A2AServerInstrumentation {
  /** Calls `serve(request)` once (the core passes its own handler: no closure per request). */
  operation<Q extends OperationRequest, R extends OperationResponse>(request: Q, serve: (request: Q) => Promise<R>): Promise<R>;
  /** `undefined` when nothing would record the run (no SDK): the core then runs the executor directly. */
  execution(context: ExecutionContext): ExecutionObserverLike | undefined;
  traceId(): string | undefined;
  /** Pass to `new Governor({ hooks })` (and a dispatcher's `hooks`): one child span per governance stage. */
  readonly governanceHooks: StageHooks;
  /** Pass to `createPushSender({ onEvent })`: push deliveries and retries as metrics. */
  onPushEvent(event: PushEvent): void;
}

/** The open span of a dispatch's current stage (a governor runs a dispatch's stages one after another). */
interface OpenStage {
  readonly stage: string;
  readonly span: Span;
}

/**
 * OpenTelemetry spans and metrics for an A2A server (decision record 0027): one SERVER span per
 * request continuing the caller's W3C trace, a child span per governance stage, an `invoke_agent`
 * span per executor run (outbound calls made inside it are its children), and the metrics of the
 * docs' table. It uses the OpenTelemetry API only: without a registered SDK every span and
 * instrument is a no-op. Spans nest through the active context, so the application registers a
 * context manager (the Node SDK does; or `AsyncLocalStorageContextManager`).
 *
 * With nothing listening (no tracer provider behind the API, and the meter a no-op) a request
 * costs next to nothing: no span, attribute or metric call is made; the caller's `traceparent` is
 * still made the active context, so a root TaskContext and outbound calls continue its trace.
 */
export function createServerInstrumentation(options: ServerInstrumentationOptions = {}): A2AServerInstrumentation {
  const tracer = (options.tracerProvider ?? trace).getTracer(INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION);
  const meter = (options.meterProvider ?? metrics).getMeter(INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION);
  const metered = metricsLive(meter);
  const m = createServerMetrics(meter);
  const { agentId, agentName } = options;
  const executorSpanName = agentName ? `invoke_agent ${agentName}` : 'invoke_agent';
  if (options.budget !== undefined) observeBudget(meter, options.budget);
  /** Whether spans could record now (an SDK may be registered after this call). */
  const traced = createTracingCheck(options.tracerProvider);
  /**
   * Whether a stage or executor span started under `active` could record: not when tracing is off,
   * nor under a local span that records nothing (a trace the sampler dropped), whose children a
   * parent-based sampler drops too. A remote parent (the caller's) records nothing by nature.
   */
  const childMayRecord = (active: Context): boolean => {
    if (!traced()) return false;
    const parent = trace.getSpan(active);
    return parent === undefined || parent.isRecording() || parent.spanContext().isRemote === true;
  };

  // Made once per method or label pair, not per request.
  const operationOptions = new Map<string, { name: string; options: SpanOptions }>();
  const operationOf = (method: string): { name: string; options: SpanOptions } => {
    let found = operationOptions.get(method);
    if (found === undefined) {
      const attributes = rpcAttributes(method);
      if (agentId !== undefined) attributes[ATTR_GEN_AI_AGENT_ID] = agentId;
      if (agentName !== undefined) attributes[ATTR_GEN_AI_AGENT_NAME] = agentName;
      found = { name: operationSpanName(method), options: { kind: SpanKind.SERVER, attributes: Object.freeze(attributes) } };
      operationOptions.set(method, found);
    }
    return found;
  };
  const requestLabels = createAttributeCache((method, outcome) => ({ [ATTR_RPC_METHOD]: method, [ATTR_OUTCOME]: outcome }));
  const refusalLabels = createAttributeCache((stage, reason) => ({ [ATTR_GOVERNANCE_STAGE]: stage, [ATTR_GOVERNANCE_REASON]: reason }));
  const stateLabels = createAttributeCache((state) => ({ [ATTR_TASK_STATE]: state }));
  const streamLabels = createAttributeCache((method) => ({ [ATTR_RPC_METHOD]: method }));

  /** Ends the operation span and records the request metrics. */
  const finish = (span: Span, method: string, start: number, outcome: string, error?: { message: string }): void => {
    if (metered) {
      const labels = requestLabels(method, outcome);
      m.requests.add(1, labels);
      m.duration.record((performance.now() - start) / 1000, labels);
    }
    if (span.isRecording()) {
      span.setAttribute(ATTR_OUTCOME, outcome);
      if (error !== undefined) {
        span.setAttribute(ATTR_ERROR_TYPE, outcome);
        span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
      }
    }
    span.end();
  };

  async function* observeStream(events: AsyncIterable<unknown>, span: Span, method: string, start: number): AsyncIterable<unknown> {
    const labels = streamLabels(method);
    if (metered) m.activeStreams.add(1, labels);
    let failure: unknown;
    try {
      yield* events;
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      if (metered) m.activeStreams.add(-1, labels);
      if (failure === undefined) finish(span, method, start, 'ok');
      else finish(span, method, start, outcomeOf(failure), { message: failure instanceof Error ? failure.message : 'stream failed' });
    }
  }

  /** Keyed by dispatch id: a governor runs one dispatch's stages one after another. */
  const stages = new Map<string, OpenStage>();

  const governanceHooks: StageHooks = {
    // Refusals are counted by onStageFinish: with metrics on, every dispatch is heard.
    enabled: () => metered || traced(),
    onStageStart(stage: StageStart) {
      const active = context.active();
      if (!childMayRecord(active)) return;
      const attributes: Attributes = {
        [ATTR_GOVERNANCE_STAGE]: stage.stage,
        [ATTR_GOVERNANCE_DISPATCH_ID]: stage.dispatchId,
        [ATTR_CALLER_ID]: stage.caller,
        [ATTR_SKILL_ID]: stage.skill,
      };
      if (stage.traceId !== undefined) attributes[ATTR_LINEAGE_TRACE_ID] = stage.traceId;
      if (stage.estimatedCostUsd !== undefined) attributes[ATTR_COST_ESTIMATED_USD] = stage.estimatedCostUsd;
      const span = tracer.startSpan(
        `a2a.governance.${stage.stage}`,
        { kind: SpanKind.INTERNAL, startTime: stage.startTime, attributes },
        active,
      );
      // A span that records nothing needs no finish.
      if (span.isRecording()) stages.set(stage.dispatchId, { stage: stage.stage, span });
    },
    onStageFinish(stage: StageFinish) {
      if (metered && stage.decision === 'rejected') m.refusals.add(1, refusalLabels(stage.stage, stage.reason ?? 'unknown'));
      const open = stages.get(stage.dispatchId);
      if (open === undefined || open.stage !== stage.stage) return;
      stages.delete(stage.dispatchId);
      endStageSpan(open.span, stage);
    },
  };

  function execution(requestContext: ExecutionContext): ExecutionObserverLike | undefined {
    // Nothing records this run: the core runs the executor as without instrumentation.
    if (!metered && !traced()) return undefined;
    const active = context.active();
    const span = childMayRecord(active)
      ? tracer.startSpan(
          executorSpanName,
          { kind: SpanKind.INTERNAL, attributes: executionAttributes(requestContext, agentId, agentName) },
          active,
        )
      : undefined;
    if (span === undefined && !metered) return undefined;
    if (metered) m.activeTasks.add(1);
    return {
      run(execute) {
        if (span === undefined) return execute();
        return context.with(trace.setSpan(context.active(), span), execute);
      },
      end(outcome: ExecutionEnd) {
        const state = outcome.task?.status.state ?? (outcome.message ? 'message' : 'none');
        const { tokens, usd } = outcome.usage;
        if (metered) {
          m.activeTasks.add(-1);
          m.tasksFinished.add(1, stateLabels(state));
          if (usd > 0) m.spentUsd.add(usd);
          if (tokens > 0) m.spentTokens.add(tokens);
        }
        if (span === undefined) return;
        if (span.isRecording()) {
          span.setAttribute(ATTR_TASK_STATE, state);
          span.setAttribute(ATTR_COST_USD, usd);
          span.setAttribute(ATTR_USAGE_TOKENS, tokens);
          if (outcome.error !== undefined) {
            span.setAttribute(ATTR_ERROR_TYPE, outcome.error instanceof Error ? outcome.error.name : 'error');
            span.setStatus({ code: SpanStatusCode.ERROR, message: 'executor failed' });
          } else if (state === 'TASK_STATE_FAILED') {
            span.setStatus({ code: SpanStatusCode.ERROR, message: state });
          }
        }
        span.end();
      },
    };
  }

  /** The traced and metered path of one request. */
  function observe<Q extends OperationRequest, R extends OperationResponse>(
    request: Q,
    serve: (request: Q) => Promise<R>,
    parent: Context,
  ): Promise<R> {
    const method = methodLabel(request.method);
    const start = metered ? performance.now() : 0;
    const operation = operationOf(method);
    const span = tracer.startSpan(operation.name, operation.options, parent);
    if (request.version !== undefined && span.isRecording()) span.setAttribute(ATTR_PROTOCOL_VERSION, request.version.slice(0, 16));
    return context.with(trace.setSpan(parent, span), serve, undefined, request).then(
      (response) => {
        // The same shape with the events observed (R is a response of that kind).
        if (response.kind === 'stream') return { kind: 'stream', events: observeStream(response.events, span, method, start) } as R;
        if (response.kind === 'error') finish(span, method, start, response.error.reason, response.error);
        else finish(span, method, start, 'ok');
        return response;
      },
      (error: unknown) => {
        finish(span, method, start, outcomeOf(error), { message: 'request failed' });
        throw error;
      },
    );
  }

  return {
    governanceHooks,
    operation<Q extends OperationRequest, R extends OperationResponse>(request: Q, serve: (request: Q) => Promise<R>): Promise<R> {
      if (metered || traced()) return observe(request, serve, withRemoteParent(context.active(), request.auth?.headers));
      // Nothing listens: no span, but the caller's trace (if any) becomes the active context, when there is one.
      if (!contextManaged()) return serve(request);
      const active = context.active();
      const parent = withRemoteParent(active, request.auth?.headers);
      const spanContext = trace.getSpanContext(parent);
      return parent === active || spanContext === undefined || !isSpanContextValid(spanContext)
        ? serve(request)
        : context.with(parent, serve, undefined, request);
    },
    execution,
    traceId: () => traceIdOf(context.active()),
    onPushEvent(event: PushEvent) {
      if (!metered) return;
      if (event.type === 'retrying') m.pushRetries.add(1);
      else m.pushDeliveries.add(1, { [ATTR_PUSH_OUTCOME]: event.type });
    },
  };
}

function executionAttributes(requestContext: ExecutionContext, agentId: string | undefined, agentName: string | undefined): Attributes {
  const attributes: Attributes = {
    [ATTR_GEN_AI_OPERATION]: 'invoke_agent',
    [ATTR_GEN_AI_CONVERSATION_ID]: requestContext.contextId,
    [ATTR_TASK_ID]: requestContext.taskId,
    [ATTR_CONTEXT_ID]: requestContext.contextId,
  };
  if (agentId !== undefined) attributes[ATTR_GEN_AI_AGENT_ID] = agentId;
  if (agentName !== undefined) attributes[ATTR_GEN_AI_AGENT_NAME] = agentName;
  if (requestContext.skillId !== undefined) attributes[ATTR_SKILL_ID] = requestContext.skillId;
  const principal = requestContext.principal;
  if (principal !== undefined) attributes[ATTR_CALLER_ID] = principal.agentId ?? principal.id;
  if (principal?.agentId !== undefined) attributes[ATTR_CALLER_AGENT_ID] = principal.agentId;
  const lineage = requestContext.taskContext;
  if (lineage !== undefined) {
    attributes[ATTR_LINEAGE_TRACE_ID] = lineage.traceId;
    attributes[ATTR_LINEAGE_DEPTH] = lineage.depth;
    attributes[ATTR_LINEAGE_ROOT_AGENT_ID] = lineage.rootAgentId;
    // Not copied: attributes given at span start are the SDK's to copy (it does), and we never write to it.
    attributes[ATTR_LINEAGE_VISITED_AGENTS] = lineage.visitedAgents as string[];
    if (lineage.parentTaskId !== undefined) attributes[ATTR_LINEAGE_PARENT_TASK_ID] = lineage.parentTaskId;
  }
  return attributes;
}
/** A stage span's verdict: decision and reason, a refusal's details, an error status unless accepted. */
function endStageSpan(span: Span, stage: StageFinish): void {
  span.setAttribute(ATTR_GOVERNANCE_DECISION, stage.decision);
  if (stage.reason !== undefined) span.setAttribute(ATTR_GOVERNANCE_REASON, stage.reason);
  if (stage.decision === 'rejected') setRefusal(span, stage.stage, stage.error);
  if (stage.decision !== 'accepted') span.setStatus({ code: SpanStatusCode.ERROR, message: `${stage.decision}: ${stage.reason ?? ''}` });
  span.end(stage.endTime);
}

/**
 * What a refusal was: its A2A reason as `error.type` (the stage's `reason` is the detail: the
 * budget's limit, the policy's field), and for the budget where it stood, from the refusal's
 * `metadata` (`limit`, `observed`, `cap`: what governance's ledgers put there), so a trace shows
 * the spend against the budget.
 */
function setRefusal(span: Span, stage: string, error: unknown): void {
  if (typeof error !== 'object' || error === null) return;
  const { reason, metadata } = error as { reason?: unknown; metadata?: unknown };
  if (typeof reason === 'string') span.setAttribute(ATTR_ERROR_TYPE, reason);
  if (stage !== 'budget' || typeof metadata !== 'object' || metadata === null) return;
  const { limit, observed, cap } = metadata as Record<string, unknown>;
  const observedNumber = Number(observed);
  const capNumber = Number(cap);
  if (typeof limit !== 'string' || !Number.isFinite(observedNumber) || !Number.isFinite(capNumber)) return;
  span.setAttribute(ATTR_BUDGET_LIMIT, limit);
  span.setAttribute(ATTR_BUDGET_OBSERVED, observedNumber);
  span.setAttribute(ATTR_BUDGET_CAP, capNumber);
}

/** Remaining budget in the ledger's window (limit minus usage and reservations), per capped currency. */
function observeBudget(meter: ReturnType<MeterProvider['getMeter']>, budget: BudgetView): void {
  const remaining = meter.createObservableGauge('a2a.budget.remaining', {
    description: 'Budget left in the ledger window (limit minus spend and reservations), by currency (usd, tokens)',
  });
  remaining.addCallback((result) => {
    const snapshot = budget.snapshot();
    const window = snapshot.window;
    if (window === undefined) return;
    const { limits, reserved } = snapshot;
    if (limits.usd !== undefined) result.observe(Math.max(0, limits.usd - window.usd - reserved.usd), { [ATTR_CURRENCY]: 'usd' });
    if (limits.tokens !== undefined) {
      result.observe(Math.max(0, limits.tokens - window.tokens - reserved.tokens), { [ATTR_CURRENCY]: 'tokens' });
    }
  });
}
