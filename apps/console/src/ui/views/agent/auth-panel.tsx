import { useState } from 'preact/hooks';
import type { ConsoleScheme } from '../../lib/schemes.js';
import type { StoredCredential } from '../../lib/secrets.js';

interface AuthPanelProps {
  schemes: ConsoleScheme[];
  origin: string;
  credential: StoredCredential | undefined;
  onApply(credential: StoredCredential | undefined): void;
}

/** The card's securitySchemes and the credential for one of them, sent only to this agent's origin. */
export function AuthPanel({ schemes, origin, credential, onApply }: AuthPanelProps) {
  const usable = schemes.filter((scheme) => scheme.kind !== 'unsupported');
  const [name, setName] = useState(credential?.scheme ?? usable[0]?.name ?? '');
  const [value, setValue] = useState(credential?.value ?? '');
  const [clientId, setClientId] = useState(credential?.clientId ?? '');
  const [clientSecret, setClientSecret] = useState(credential?.clientSecret ?? '');
  const [remember, setRemember] = useState(credential?.remember ?? false);
  if (schemes.length === 0) return null;
  const scheme = schemes.find((candidate) => candidate.name === name);
  return (
    <section class="panel" data-testid="auth-panel">
      <h3>Authentication</h3>
      <ul class="plain">
        {schemes.map((s) => (
          <li key={s.name}>
            <code>{s.name}</code>:{' '}
            {s.kind === 'apiKey'
              ? `API key in ${s.location} "${s.param}"`
              : s.kind === 'bearer'
                ? 'bearer token'
                : s.kind === 'oauth2'
                  ? `OAuth 2 client credentials${s.tokenUrl ? ` at ${s.tokenUrl}` : ''}`
                  : `not supported here: ${s.detail}`}
          </li>
        ))}
      </ul>
      {usable.length > 0 ? (
        <form
          class="row"
          onSubmit={(event) => {
            event.preventDefault();
            onApply({ scheme: name, remember, ...(scheme?.kind === 'oauth2' ? { clientId, clientSecret } : { value }) });
          }}
        >
          <select value={name} onChange={(e) => setName((e.target as HTMLSelectElement).value)} aria-label="Scheme">
            {usable.map((s) => (
              <option key={s.name} value={s.name}>
                {s.name}
              </option>
            ))}
          </select>
          {scheme?.kind === 'oauth2' ? (
            <>
              <input
                placeholder="client id"
                value={clientId}
                onInput={(e) => setClientId((e.target as HTMLInputElement).value)}
                aria-label="Client id"
              />
              <input
                type="password"
                placeholder="client secret"
                value={clientSecret}
                onInput={(e) => setClientSecret((e.target as HTMLInputElement).value)}
                aria-label="Client secret"
              />
            </>
          ) : (
            <input
              type="password"
              placeholder={scheme?.kind === 'bearer' ? 'token' : 'API key'}
              value={value}
              onInput={(e) => setValue((e.target as HTMLInputElement).value)}
              aria-label="Secret"
              data-testid="auth-secret"
            />
          )}
          <label>
            <input type="checkbox" checked={remember} onChange={(e) => setRemember((e.target as HTMLInputElement).checked)} /> remember
          </label>
          <button type="submit" data-testid="auth-apply">
            Use
          </button>
          {credential ? (
            <button type="button" class="secondary" onClick={() => onApply(undefined)}>
              Forget
            </button>
          ) : null}
        </form>
      ) : null}
      <p class="muted">
        Sent only to <code>{origin}</code>; kept{' '}
        {remember ? 'in this browser (localStorage) until you forget it' : 'for this tab only (sessionStorage)'}; never logged.
      </p>
    </section>
  );
}
