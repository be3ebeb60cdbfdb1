import { useState } from 'preact/hooks';
import type { ReachMode } from '../../lib/console-fetch.js';

export interface ConnectRequest {
  url: string;
  mode: ReachMode;
  allowInsecureLoopback: boolean;
  /** A public JWK or JWKS (JSON) the card must be signed by; empty for none. */
  pinnedKey: string;
}

/** The agent's URL and how to reach and trust it. */
export function ConnectBar({ busy, onOpen }: { busy: boolean; onOpen(request: ConnectRequest): void }) {
  const initial = new URLSearchParams(location.hash.split('?')[1] ?? '').get('url') ?? '';
  const [url, setUrl] = useState(initial);
  const [mode, setMode] = useState<ReachMode>('auto');
  const [loopback, setLoopback] = useState(false);
  const [pinnedKey, setPinnedKey] = useState('');
  return (
    <form
      class="panel"
      onSubmit={(event) => {
        event.preventDefault();
        onOpen({ url: url.trim(), mode, allowInsecureLoopback: loopback, pinnedKey });
      }}
    >
      <div class="row">
        <input
          class="url"
          type="url"
          required
          placeholder="https://agent.example.com"
          value={url}
          onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
          aria-label="Agent URL"
          data-testid="agent-url"
        />
        <select
          value={mode}
          onChange={(e) => setMode((e.target as HTMLSelectElement).value as ReachMode)}
          aria-label="Reach"
          data-testid="reach-mode"
        >
          <option value="auto">direct, relay if CORS refuses</option>
          <option value="direct">direct only</option>
          <option value="relay">through the console’s relay</option>
        </select>
        <button type="submit" disabled={busy} data-testid="agent-open">
          Open
        </button>
      </div>
      <div class="row">
        <label>
          <input
            type="checkbox"
            checked={loopback}
            onChange={(e) => setLoopback((e.target as HTMLInputElement).checked)}
            data-testid="allow-loopback"
          />{' '}
          trust a JWKS on loopback http (development)
        </label>
        <details>
          <summary>Pin the agent’s key</summary>
          <textarea
            placeholder='{"kty":"OKP","crv":"Ed25519","x":"…","kid":"…"} or a JWKS'
            value={pinnedKey}
            onInput={(e) => setPinnedKey((e.target as HTMLTextAreaElement).value)}
            aria-label="Pinned key"
            data-testid="pinned-key"
          />
        </details>
      </div>
    </form>
  );
}
