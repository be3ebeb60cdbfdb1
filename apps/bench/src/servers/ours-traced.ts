// The governed server (as ours-governed) with OpenTelemetry instrumentation on: server spans,
// governance stage hooks, executor spans and metrics. With `--sdk` the OpenTelemetry SDK is
// registered (spans batched to an exporter that drops them, metrics aggregated for a Prometheus
// reader); without it nothing is registered (nor loaded) and every span and instrument is the API's no-op.
// `--module <another build's a2a-otel dist/index.js>` instruments with that build instead (a before/after
// row measured in the same run); the core and governance are this workspace's either way, so that build
// must have the core's current seam (`operation(request, serve)` calls `serve(request)`, decision 0046):
// for an older one, run the older checkout's own apps/bench instead.
import { pathToFileURL } from 'node:url';
import * as otel from '@a2aplane/a2a-otel';
import { benchGovernance } from './bench-governor.js';
import { serveOursOnNodeHttp } from './ours-agent.js';

const modulePath = process.argv.includes('--module') ? process.argv[process.argv.indexOf('--module') + 1] : undefined;
const { createServerInstrumentation } = (modulePath ? await import(pathToFileURL(modulePath).href) : otel) as typeof otel;
// Loaded only with --sdk: the no-SDK server runs as an application without one would.
const meterProvider = process.argv.includes('--sdk') ? (await import('./otel-sdk.js')).registerBenchSdk() : undefined;
const instrumentation = createServerInstrumentation({
  agentId: 'bench-ours',
  agentName: 'bench',
  ...(meterProvider ? { meterProvider } : {}),
});
const governance = benchGovernance(instrumentation.governanceHooks);
serveOursOnNodeHttp({ governance, instrumentation });
