import { buildDelegationTree, readOtlpTraces, summarizeTrace, waterfall } from '@a2aplane/a2a-otel/read';
import { useMemo } from 'preact/hooks';
import { apiJson } from '../../api.js';
import { DelegationTree } from './delegation-tree.js';
import { usd, usePolled } from './mesh-route.js';
import { WaterfallChart } from './waterfall.js';

/** One trace: what it spent and what was refused, its delegation tree and its waterfall (spans may still arrive: polled). */
export function TraceView({ traceId }: { traceId: string }) {
  const { data, error } = usePolled(() => apiJson<unknown>(`/api/mesh/traces/${traceId}`), 3000, traceId);
  const read = useMemo(() => {
    if (data === undefined) return undefined;
    const spans = readOtlpTraces(data);
    return { roots: buildDelegationTree(spans), summary: summarizeTrace(spans), waterfall: waterfall(spans) };
  }, [data]);
  return (
    <div data-testid="trace-view">
      <p>
        <a href="#/mesh">← all traces</a>
      </p>
      <section class="panel">
        <h3>
          Trace <code>{traceId}</code>
        </h3>
        {error && !read ? <p class="bad">{error}</p> : null}
        {read?.summary ? (
          <dl class="kv" data-testid="trace-summary">
            <dt>agents</dt>
            <dd>{read.summary.agents.join(', ') || '—'}</dd>
            <dt>spent</dt>
            <dd data-testid="trace-spent">
              {usd(read.summary.spentUsd)}
              {read.summary.budget ? (
                <span class="bad">
                  {' '}
                  · budget refused at {read.summary.budget.observed} of {read.summary.budget.cap} ({read.summary.budget.limit})
                </span>
              ) : null}
            </dd>
            <dt>refused</dt>
            <dd data-testid="trace-refusals">
              {read.summary.refusals.length === 0
                ? 'none'
                : read.summary.refusals.map((r) => `${r.agent ?? 'dispatch'}: ${r.reason ?? 'refused'}`).join('; ')}
            </dd>
            <dt>spans</dt>
            <dd>
              {read.summary.spanCount} in {read.summary.durationMs.toFixed(1)} ms
            </dd>
          </dl>
        ) : null}
      </section>
      {read ? (
        <div class="grid">
          <section class="panel">
            <h3>Delegation tree</h3>
            <DelegationTree roots={read.roots} />
          </section>
          <section class="panel">
            <h3>Waterfall</h3>
            <WaterfallChart waterfall={read.waterfall} />
          </section>
        </div>
      ) : null}
    </div>
  );
}
