import type { DelegationHop, GovernanceDecision } from '@a2aplane/a2a-otel/read';
import { shortId, usd } from './mesh-route.js';

const OUTCOME_TONE: Record<DelegationHop['outcome'], string> = { completed: 'ok', rejected: 'bad', failed: 'warn', running: 'muted' };

function Decision({ decision }: { decision: GovernanceDecision }) {
  const tone = decision.decision === 'accepted' ? 'ok' : 'bad';
  const budget = decision.budget;
  return (
    <li data-testid="governance-decision" data-stage={decision.stage} data-decision={decision.decision}>
      <span class={tone}>
        {decision.side} {decision.stage}: {decision.decision === 'accepted' ? 'admitted' : decision.decision}
      </span>
      {decision.errorType ? ` ${decision.errorType}` : ''}
      {decision.reason ? <span class="muted"> ({decision.reason})</span> : null}
      {decision.estimatedCostUsd !== undefined ? <span class="muted"> · estimate {usd(decision.estimatedCostUsd)}</span> : null}
      {budget ? (
        <span class="bad" data-testid="budget-standing">
          {' '}
          · budget {budget.limit}:{' '}
          {budget.limit === 'usd' ? `${usd(budget.observed)} of ${usd(budget.cap)}` : `${budget.observed} of ${budget.cap}`}
        </span>
      ) : null}
    </li>
  );
}

function Hop({ hop }: { hop: DelegationHop }) {
  const who = hop.kind === 'refused' ? 'call refused before it left' : (hop.agentName ?? hop.agentId ?? 'unknown agent');
  return (
    <li data-testid="hop" data-outcome={hop.outcome} data-kind={hop.kind}>
      <div class="hop">
        <strong>{who}</strong> <span class="badge muted">depth {hop.depth}</span>{' '}
        <span class={`badge ${OUTCOME_TONE[hop.outcome]}`} data-testid="hop-outcome">
          {hop.kind === 'refused' || hop.outcome === 'rejected' ? 'refused' : hop.outcome}
        </span>
        {hop.reason ? (
          <span class="bad" data-testid="hop-reason">
            {' '}
            {hop.reason}
            {hop.refusedBy ? ` by ${hop.refusedBy.stage}${hop.refusedBy.detail ? ` (${hop.refusedBy.detail})` : ''}` : ''}
          </span>
        ) : null}
        {hop.costUsd !== undefined ? <span data-testid="hop-cost"> · spent {usd(hop.costUsd)}</span> : null}
        {hop.tokens ? <span class="muted"> · {hop.tokens} tokens</span> : null}
        <div class="muted">
          {hop.agentId ? (
            <>
              AgentID{' '}
              <code title={hop.agentId} data-testid="hop-agent-id">
                {shortId(hop.agentId)}
              </code>
            </>
          ) : null}
          {hop.method ? ` · ${hop.method}` : ''}
          {hop.taskId ? ` · task ${shortId(hop.taskId)}` : ''}
        </div>
        {hop.decisions.length > 0 ? (
          <ul class="decisions">
            {hop.decisions.map((d) => (
              <Decision key={d.spanId} decision={d} />
            ))}
          </ul>
        ) : null}
      </div>
      {hop.children.length > 0 ? (
        <ul class="tree">
          {hop.children.map((child) => (
            <Hop key={child.spanId} hop={child} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

/** The delegation tree: each hop's agent, AgentID, depth, governance decisions and spend. */
export function DelegationTree({ roots }: { roots: readonly DelegationHop[] }) {
  if (roots.length === 0) return <p class="muted">No server span in this trace yet: no agent has served a call in it.</p>;
  return (
    <ul class="tree root" data-testid="delegation-tree">
      {roots.map((hop) => (
        <Hop key={hop.spanId} hop={hop} />
      ))}
    </ul>
  );
}
