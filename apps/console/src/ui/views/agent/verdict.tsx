import type { CardVerdict } from '../../lib/inspect.js';

const LABEL: Record<string, string> = {
  valid: 'signature valid',
  'no-signature': 'unsigned',
  tampered: 'TAMPERED',
  'untrusted-key': 'untrusted key',
  'unsupported-algorithm': 'unsupported algorithm',
  malformed: 'malformed signature',
  'agent-id-mismatch': 'AgentID mismatch',
};

/** The card's signature verdict: which key signed it, whether the AgentID is bound, pinned or not. */
export function Verdict({ verdict }: { verdict: CardVerdict }) {
  const tone = verdict.status === 'valid' ? 'ok' : verdict.status === 'no-signature' ? 'warn' : 'bad';
  const v = verdict as CardVerdict & Record<string, unknown>;
  const bound = verdict.status === 'valid' && typeof v.agentId === 'string' && verdict.declaredAgentId === v.agentId;
  return (
    <div data-testid="verdict">
      <p>
        <span class={`badge ${tone}`} data-testid="verdict-status">
          {LABEL[verdict.status] ?? verdict.status}
        </span>{' '}
        {verdict.status === 'no-signature' ? null : (
          <span class="badge muted" data-testid="verdict-pinning">
            {verdict.pinned ? 'pinned key' : 'unpinned (jku on the card’s origin)'}
          </span>
        )}
      </p>
      <dl class="kv">
        {verdict.status === 'valid' ? (
          <>
            <dt>signed by</dt>
            <dd data-testid="verdict-kid">
              kid <code>{String(v.kid)}</code> ({String(v.algorithm)})
            </dd>
            <dt>AgentID</dt>
            <dd data-testid="verdict-agent-id">
              {typeof v.agentId === 'string' ? <code>{v.agentId}</code> : 'none (not an Ed25519 key)'}{' '}
              <span class={bound ? 'ok' : 'warn'}>
                {bound
                  ? '· bound: the card declares this AgentID'
                  : verdict.declaredAgentId
                    ? '· the card declares another AgentID'
                    : '· not declared by the card'}
              </span>
            </dd>
          </>
        ) : null}
        {verdict.status === 'untrusted-key' ? (
          <>
            <dt>kids</dt>
            <dd>
              {(v.kids as string[]).join(', ') || '(none)'} — no trusted key: pin the agent’s key, or serve its JWKS over https on its
              origin
            </dd>
          </>
        ) : null}
        {verdict.status === 'tampered' || verdict.status === 'malformed' ? (
          <>
            <dt>detail</dt>
            <dd>{String(v.detail)}</dd>
          </>
        ) : null}
        {verdict.status === 'agent-id-mismatch' ? (
          <>
            <dt>declared</dt>
            <dd>{String(v.declared)}</dd>
            <dt>signers</dt>
            <dd>{(v.signers as string[]).join(', ')}</dd>
          </>
        ) : null}
      </dl>
    </div>
  );
}
