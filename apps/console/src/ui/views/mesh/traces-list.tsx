import type { TraceSummary } from '@a2aplane/a2a-otel/read';
import { apiJson } from '../../api.js';
import { shortId, traceHref, usd, usePolled } from './mesh-route.js';

/** Recent traces the agents' OpenTelemetry exporters sent to `/v1/traces`, newest first. */
export function TracesList() {
  const { data, error, reload } = usePolled(() => apiJson<{ traces: TraceSummary[] }>('/api/mesh/traces'), 2000, 'traces');
  const traces = data?.traces ?? [];
  return (
    <section class="panel" data-testid="traces-list">
      <h3>
        Recent traces{' '}
        <button type="button" class="secondary" onClick={reload}>
          Refresh
        </button>
      </h3>
      <p class="muted">
        Point an agent’s standard OpenTelemetry exporter (OTLP/HTTP JSON) at <code>{`${location.origin}/v1/traces`}</code>.
      </p>
      {error ? <p class="bad">{error}</p> : null}
      {traces.length === 0 ? (
        <p class="muted" data-testid="traces-empty">
          No trace received yet.
        </p>
      ) : (
        <table class="log">
          <thead>
            <tr>
              <th>trace</th>
              <th>root</th>
              <th>agents</th>
              <th>hops</th>
              <th>refused</th>
              <th>spent</th>
              <th>duration</th>
            </tr>
          </thead>
          <tbody>
            {traces.map((trace) => (
              <tr key={trace.traceId} data-testid="trace-row" data-trace-id={trace.traceId}>
                <td>
                  <a href={traceHref(trace.traceId)} title={trace.traceId}>
                    <code>{shortId(trace.traceId)}</code>
                  </a>
                </td>
                <td>{trace.rootName}</td>
                <td>{trace.agents.join(', ')}</td>
                <td>{trace.hops}</td>
                <td class={trace.refusals.length > 0 ? 'bad' : ''}>
                  {trace.refusals.length > 0 ? trace.refusals.map((r) => r.reason ?? 'refused').join(', ') : '—'}
                </td>
                <td>{usd(trace.spentUsd)}</td>
                <td>{trace.durationMs.toFixed(1)} ms</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
