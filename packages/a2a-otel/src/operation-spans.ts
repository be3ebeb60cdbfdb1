import {
  type Context,
  context,
  isSpanContextValid,
  type Span,
  SpanKind,
  type SpanOptions,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_AGENT_ID,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_OUTCOME,
  ATTR_PROTOCOL_VERSION,
  ATTR_RPC_METHOD,
  operationSpanName,
} from './attributes.js';
import type { ServerScope } from './server-scope.js';
import { contextManaged, createAttributeCache, methodLabel, outcomeOf, rpcAttributes, withRemoteParent } from './shared.js';
import type { OperationRequest, OperationResponse } from './types.js';

/** Serves one request under the instrumentation (`A2AServerInstrumentation.operation`). */
type OperationObserver = <Q extends OperationRequest, R extends OperationResponse>(
  request: Q,
  serve: (request: Q) => Promise<R>,
) => Promise<R>;

/**
 * The request observer: one SERVER span per request continuing the caller's W3C trace, and the
 * request metrics (a stream's span and duration end with its last event). With nothing listening
 * no span is made, but the caller's `traceparent` still becomes the active context.
 */
export function createOperationObserver(scope: ServerScope, agentId: string | undefined, agentName: string | undefined): OperationObserver {
  const { tracer, metrics: m, metered, traced } = scope;
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

  return (request, serve) => {
    if (metered || traced()) return observe(request, serve, withRemoteParent(context.active(), request.auth?.headers));
    // Nothing listens: no span, but the caller's trace (if any) becomes the active context, when there is one.
    if (!contextManaged()) return serve(request);
    const active = context.active();
    const parent = withRemoteParent(active, request.auth?.headers);
    const spanContext = trace.getSpanContext(parent);
    return parent === active || spanContext === undefined || !isSpanContextValid(spanContext)
      ? serve(request)
      : context.with(parent, serve, undefined, request);
  };
}
