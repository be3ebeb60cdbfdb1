import {
  type Attributes,
  type Context,
  context,
  type MeterProvider,
  metrics,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type TracerProvider,
} from '@opentelemetry/api';
import {
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
  INSTRUMENTATION_NAME,
  INSTRUMENTATION_VERSION,
  methodLabel,
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
  operation<R extends OperationResponse>(request: OperationRequest, serve: () => Promise<R>): Promise<R>;
  execution(context: ExecutionContext): ExecutionObserverLike;
  traceId(): string | undefined;
  /** Pass to `new Governor({ hooks })` (and a dispatcher's `hooks`): one child span per governance stage. */
  readonly governanceHooks: StageHooks;
  /** Pass to `createPushSender({ onEvent })`: push deliveries and retries as metrics. */
  onPushEvent(event: PushEvent): void;
}

const stageKey = (stage: { dispatchId: string; stage: string }): string => `${stage.dispatchId}\u0000${stage.stage}`;

/**
 * OpenTelemetry spans and metrics for an A2A server (decision record 0027): one SERVER span per
 * request continuing the caller's W3C trace, a child span per governance stage, an `invoke_agent`
 * span per executor run (outbound calls made inside it are its children), and the metrics of the
 * docs' table. It uses the OpenTelemetry API only: without a registered SDK every span and
 * instrument is a no-op. Spans nest through the active context, so the application registers a
 * context manager (the Node SDK does; or `AsyncLocalStorageContextManager`).
 */
export function createServerInstrumentation(options: ServerInstrumentationOptions = {}): A2AServerInstrumentation {
  const tracer = (options.tracerProvider ?? trace).getTracer(INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION);
  const meter = (options.meterProvider ?? metrics).getMeter(INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION);
  const m = createServerMetrics(meter);
  const agentName = options.agentName;
  const executorSpanName = agentName ? `invoke_agent ${agentName}` : 'invoke_agent';
  if (options.budget !== undefined) observeBudget(meter, options.budget);

  /** Ends the operation span and records the request metrics. */
  const finish = (span: Span, method: string, start: number, outcome: string, error?: { message: string }): void => {
    const attributes = { [ATTR_RPC_METHOD]: method, [ATTR_OUTCOME]: outcome };
    m.requests.add(1, attributes);
    m.duration.record((performance.now() - start) / 1000, attributes);
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
    m.activeStreams.add(1, { [ATTR_RPC_METHOD]: method });
    let failure: unknown;
    try {
      yield* events;
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      m.activeStreams.add(-1, { [ATTR_RPC_METHOD]: method });
      if (failure === undefined) finish(span, method, start, 'ok');
      else finish(span, method, start, outcomeOf(failure), { message: failure instanceof Error ? failure.message : 'stream failed' });
    }
  }

  const stages = new Map<string, Span>();

  const governanceHooks: StageHooks = {
    onStageStart(stage: StageStart) {
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
        context.active(),
      );
      // A span that records nothing needs no finish.
      if (span.isRecording()) stages.set(stageKey(stage), span);
    },
    onStageFinish(stage: StageFinish) {
      if (stage.decision === 'rejected') {
        m.refusals.add(1, { [ATTR_GOVERNANCE_STAGE]: stage.stage, [ATTR_GOVERNANCE_REASON]: stage.reason ?? 'unknown' });
      }
      const key = stageKey(stage);
      const span = stages.get(key);
      if (span === undefined) return;
      stages.delete(key);
      span.setAttribute(ATTR_GOVERNANCE_DECISION, stage.decision);
      if (stage.reason !== undefined) span.setAttribute(ATTR_GOVERNANCE_REASON, stage.reason);
      if (stage.decision !== 'accepted')
        span.setStatus({ code: SpanStatusCode.ERROR, message: `${stage.decision}: ${stage.reason ?? ''}` });
      span.end(stage.endTime);
    },
  };

  function execution(requestContext: ExecutionContext): ExecutionObserverLike {
    const span = tracer.startSpan(executorSpanName, { kind: SpanKind.INTERNAL }, context.active());
    if (span.isRecording()) span.setAttributes(executionAttributes(requestContext, options.agentId, agentName));
    m.activeTasks.add(1);
    let runContext: Context | undefined;
    return {
      run(execute) {
        runContext ??= trace.setSpan(context.active(), span);
        return context.with(runContext, execute);
      },
      end(outcome: ExecutionEnd) {
        m.activeTasks.add(-1);
        const state = outcome.task?.status.state ?? (outcome.message ? 'message' : 'none');
        m.tasksFinished.add(1, { [ATTR_TASK_STATE]: state });
        const { tokens, usd } = outcome.usage;
        if (usd > 0) m.spentUsd.add(usd);
        if (tokens > 0) m.spentTokens.add(tokens);
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

  return {
    governanceHooks,
    operation<R extends OperationResponse>(request: OperationRequest, serve: () => Promise<R>): Promise<R> {
      const method = methodLabel(request.method);
      const start = performance.now();
      const parent = withRemoteParent(context.active(), request.auth?.headers);
      const span = tracer.startSpan(operationSpanName(method), { kind: SpanKind.SERVER, attributes: rpcAttributes(method) }, parent);
      if (span.isRecording()) {
        if (request.version !== undefined) span.setAttribute(ATTR_PROTOCOL_VERSION, request.version.slice(0, 16));
        if (options.agentId !== undefined) span.setAttribute(ATTR_GEN_AI_AGENT_ID, options.agentId);
        if (agentName !== undefined) span.setAttribute(ATTR_GEN_AI_AGENT_NAME, agentName);
      }
      return context.with(trace.setSpan(parent, span), serve).then(
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
    },
    execution,
    traceId: () => traceIdOf(context.active()),
    onPushEvent(event: PushEvent) {
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
    attributes[ATTR_LINEAGE_VISITED_AGENTS] = [...lineage.visitedAgents];
    if (lineage.parentTaskId !== undefined) attributes[ATTR_LINEAGE_PARENT_TASK_ID] = lineage.parentTaskId;
  }
  return attributes;
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
