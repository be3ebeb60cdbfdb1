import type { Interceptors } from '@a2aplane/a2a-client';
import type { GovernanceHooks } from '@a2aplane/a2a-governance';
import { type A2AServerInstrumentation, createClientInterceptors, createServerInstrumentation } from '@a2aplane/a2a-otel';
import { context, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

/**
 * The demo's OpenTelemetry SDK: spans kept in memory (the OTel SDK's in-memory exporter), the
 * instrumentation of every agent and client fed from one tracer provider, and the spans of one
 * trace serialized as OTLP JSON by the SDK's own transformer.
 */
export interface DemoTracing {
  /** The server instrumentation of one agent (its AgentID and name on the `invoke_agent` spans). */
  serverFor(agent: { agentId: string; name: string }): A2AServerInstrumentation;
  /** Stage spans for every governor (inbound and the dispatchers'). */
  readonly governanceHooks: GovernanceHooks;
  /** For every client between agents and from the demo. */
  readonly clientInterceptors: Interceptors;
  /** For what the demo traces itself: the MCP hops (a2a-mcp's governed client) and the MCP tool server. */
  readonly tracer: Tracer;
  /** Finished spans of one trace. */
  spansOf(traceId: string): ReadableSpan[];
  /** OTLP JSON (`ExportTraceServiceRequest`) of one trace. */
  otlpJson(traceId: string): string;
  shutdown(): Promise<void>;
}

export function startDemoTracing(): DemoTracing {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  // Spans nest through the active context: one context manager for the process.
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  const governanceHooks = createServerInstrumentation({ tracerProvider }).governanceHooks;
  const spansOf = (traceId: string): ReadableSpan[] => exporter.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);
  return {
    serverFor: ({ agentId, name }) => createServerInstrumentation({ tracerProvider, agentId, agentName: name }),
    governanceHooks,
    clientInterceptors: createClientInterceptors({ tracerProvider }),
    tracer: tracerProvider.getTracer('control-plane-demo'),
    spansOf,
    otlpJson: (traceId) => new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spansOf(traceId) as never)),
    async shutdown() {
      await tracerProvider.shutdown();
      context.disable();
    },
  };
}
