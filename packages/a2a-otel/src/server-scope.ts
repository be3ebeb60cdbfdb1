import { type Context, type MeterProvider, metrics, type Tracer, type TracerProvider, trace } from '@opentelemetry/api';
import { createServerMetrics, type ServerMetrics } from './metrics.js';
import { createTracingCheck, INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION, metricsLive } from './shared.js';

/** What the request, governance and executor observers of one server instrumentation share. */
export interface ServerScope {
  readonly tracer: Tracer;
  readonly meter: ReturnType<MeterProvider['getMeter']>;
  readonly metrics: ServerMetrics;
  /** Whether the meter records (fixed when the instrumentation is made). */
  readonly metered: boolean;
  /** Whether spans could record now (an SDK may be registered after the instrumentation is made). */
  readonly traced: () => boolean;
  /**
   * Whether a stage or executor span started under `active` could record: not when tracing is off,
   * nor under a local span that records nothing (a trace the sampler dropped), whose children a
   * parent-based sampler drops too. A remote parent (the caller's) records nothing by nature.
   */
  readonly childMayRecord: (active: Context) => boolean;
}

export function createServerScope(options: { tracerProvider?: TracerProvider; meterProvider?: MeterProvider }): ServerScope {
  const tracer = (options.tracerProvider ?? trace).getTracer(INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION);
  const meter = (options.meterProvider ?? metrics).getMeter(INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION);
  const traced = createTracingCheck(options.tracerProvider);
  return {
    tracer,
    meter,
    metrics: createServerMetrics(meter),
    metered: metricsLive(meter),
    traced,
    childMayRecord(active) {
      if (!traced()) return false;
      const parent = trace.getSpan(active);
      return parent === undefined || parent.isRecording() || parent.spanContext().isRemote === true;
    },
  };
}
