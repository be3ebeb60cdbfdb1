import type { Waterfall } from '@a2aplane/a2a-otel/read';

/** The trace as a waterfall: one row per span in tree order, its bar on the trace's time axis (hover for attributes). */
export function WaterfallChart({ waterfall }: { waterfall: Waterfall }) {
  return (
    <div class="waterfall" data-testid="waterfall">
      <div class="wf-axis muted">
        <span>0 ms</span>
        <span>{waterfall.totalMs.toFixed(1)} ms</span>
      </div>
      {waterfall.rows.map((row) => {
        const details = Object.entries(row.span.attributes)
          .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(',') : String(v)}`)
          .join('\n');
        return (
          <div
            class="wf-row"
            key={row.span.spanId}
            title={`${row.span.name} (${row.durationMs.toFixed(2)} ms)\n${details}`}
            data-testid="waterfall-row"
          >
            <span class="wf-label" style={{ paddingLeft: `${Math.min(row.depth, 24) * 0.6}em` }}>
              {row.label}
            </span>
            <span class="wf-track">
              <span
                class="wf-bar"
                style={{
                  left: `${(row.offset * 100).toFixed(2)}%`,
                  width: `max(2px, ${(row.width * 100).toFixed(2)}%)`,
                  background: row.color,
                }}
              />
            </span>
          </div>
        );
      })}
    </div>
  );
}
