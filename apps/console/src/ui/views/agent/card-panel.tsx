import { useState } from 'preact/hooks';
import { type CardCheck, checkCard, schemaCheck } from '../../lib/card-checks.js';
import type { Inspection } from '../../lib/inspect.js';
import { Verdict } from './verdict.js';

function Checks({ checks }: { checks: CardCheck[] }) {
  return (
    <ul class="plain" data-testid="card-checks">
      {checks.map((check) => (
        <li key={check.text} class={check.level === 'ok' ? 'ok' : check.level === 'warn' ? 'warn' : 'bad'}>
          {check.level === 'ok' ? '✓' : check.level === 'warn' ? '!' : '✗'} {check.text}
        </li>
      ))}
    </ul>
  );
}

/** The card: identity, signature verdict, interfaces, skills, spec checks, the raw JSON. */
export function CardPanel({ inspection }: { inspection: Inspection }) {
  const { card } = inspection.discovered;
  const [schema, setSchema] = useState<CardCheck[] | undefined>();
  const checks = checkCard(card, inspection.verdict, inspection.protocolVersion);
  return (
    <section class="panel" data-testid="card-panel">
      <h2 data-testid="card-name">
        {card.name} <span class="muted">v{card.version}</span>{' '}
        <span class="badge" data-testid="card-protocol">
          A2A {inspection.protocolVersion}
        </span>
      </h2>
      <p class="muted">{card.description}</p>
      <p class="muted">
        card from <code>{inspection.discovered.url}</code>
      </p>
      <Verdict verdict={inspection.verdict} />
      <h3>Interfaces</h3>
      <ul class="plain" data-testid="card-interfaces">
        {card.supportedInterfaces.map((iface) => (
          <li key={`${iface.url} ${iface.protocolBinding} ${iface.protocolVersion}`}>
            <code>{iface.protocolBinding}</code> {iface.protocolVersion} <code>{iface.url}</code>
          </li>
        ))}
      </ul>
      <h3>Skills</h3>
      <ul class="plain" data-testid="card-skills">
        {(card.skills ?? []).map((skill) => (
          <li key={skill.id}>
            <strong>{skill.name}</strong> <code>{skill.id}</code> <span class="muted">{skill.description}</span>
            {skill.tags?.length ? <span class="muted"> · {skill.tags.join(', ')}</span> : null}
          </li>
        ))}
      </ul>
      <h3>Checks</h3>
      <Checks checks={checks} />
      {schema ? (
        <Checks checks={schema} />
      ) : (
        <button type="button" class="secondary" onClick={() => void schemaCheck(card).then(setSchema)}>
          Check against the full schema
        </button>
      )}
      <details>
        <summary>Raw card</summary>
        <pre>{JSON.stringify(inspection.raw, null, 2)}</pre>
      </details>
    </section>
  );
}
