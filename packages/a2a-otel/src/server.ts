import { context, type MeterProvider, type TracerProvider } from '@opentelemetry/api';
import { observeBudget } from './budget-gauge.js';
import { createExecutionObserver } from './execution-spans.js';
import { createGovernanceHooks } from './governance-spans.js';
import { createOperationObserver } from './operation-spans.js';
import { createServerScope } from './server-scope.js';
import { ATTR_PUSH_OUTCOME } from './attributes.js';
import { traceIdOf } from './shared.js';
import type {
  BudgetView,
  ExecutionContext,
  ExecutionObserverLike,
  OperationRequest,
  OperationResponse,
  PushEvent,
  StageHooks,
} from './types.js';

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
  /** Pass to `createGovernor({ hooks })` (and a dispatcher's `hooks`): one child span per governance stage. */
  readonly governanceHooks: StageHooks;
  /** Pass to `createPushSender({ onEvent })`: push deliveries and retries as metrics. */
  onPushEvent(event: PushEvent): void;
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
  const scope = createServerScope(options);
  const { agentId, agentName } = options;
  if (options.budget !== undefined) observeBudget(scope.meter, options.budget);
  const { metered, metrics: m } = scope;
  return {
    governanceHooks: createGovernanceHooks(scope),
    operation: createOperationObserver(scope, agentId, agentName),
    execution: createExecutionObserver(scope, agentId, agentName),
    traceId: () => traceIdOf(context.active()),
    onPushEvent(event: PushEvent) {
      if (!metered) return;
      if (event.type === 'retrying') m.pushRetries.add(1);
      else m.pushDeliveries.add(1, { [ATTR_PUSH_OUTCOME]: event.type });
    },
  };
}
