// The OpenTelemetry SDK as an application registers it: a context manager, a tracer provider
// whose batch processor hands spans to an exporter (here one that drops them: the bench measures
// the server, not a collector) and a meter provider read by the Prometheus exporter.
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';

const dropSpans: SpanExporter = {
  export(_spans: ReadableSpan[], done) {
    done({ code: 0 });
  },
  shutdown: async () => undefined,
};

/** Registers the SDK globally; returns the meter provider to instrument with. */
export function registerBenchSdk(): MeterProvider {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropSpans)] }));
  return new MeterProvider({ readers: [new PrometheusExporter({ preventServerStart: true })] });
}
