import { useState } from 'preact/hooks';
import { apiJson } from '../../api.js';
import { agentHref, shortId, usePolled } from './mesh-route.js';

/** As `GET /api/mesh/registry` answers each agent. */
interface RegistryAgent {
  agentId: string;
  name: string;
  description: string;
  origin: string;
  cardUrl: string;
  status: string;
  health: { status: string; reason: string; latencyMs?: number; checkedAt?: string };
  tier: string;
  skills: string[];
}

interface RegistryAnswer {
  configured: boolean;
  url?: string;
  agents: RegistryAgent[];
}

const TONE: Record<string, string> = { up: 'ok', degraded: 'warn', down: 'bad', 'non-conformant': 'bad', unknown: 'muted' };

/** The agents of the registry the console was started with (`--registry URL`), with health and conformance. */
export function RegistryAgents() {
  const [query, setQuery] = useState('');
  const [applied, setApplied] = useState('');
  const { data, error } = usePolled(
    () => apiJson<RegistryAnswer>(`/api/mesh/registry${applied ? `?query=${encodeURIComponent(applied)}` : ''}`),
    5000,
    applied,
  );
  if (data !== undefined && !data.configured) {
    return (
      <section class="panel" data-testid="registry-none">
        <h3>Registry</h3>
        <p class="muted">
          Start the console with <code>--registry URL</code> to list a registry’s agents here.
        </p>
      </section>
    );
  }
  return (
    <section class="panel" data-testid="registry-agents">
      <h3>Registry agents {data?.url ? <span class="muted">({data.url})</span> : null}</h3>
      <form
        class="row"
        onSubmit={(event) => {
          event.preventDefault();
          setApplied(query.trim());
        }}
      >
        <input
          value={query}
          placeholder="search name, description, skills"
          aria-label="Search the registry"
          data-testid="registry-search"
          onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
        />
        <button type="submit">Search</button>
      </form>
      {error ? <p class="bad">{error}</p> : null}
      <table class="log">
        <thead>
          <tr>
            <th>agent</th>
            <th>AgentID</th>
            <th>origin</th>
            <th>health</th>
            <th>skills</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(data?.agents ?? []).map((agent) => (
            <tr key={agent.agentId} data-testid="registry-agent" data-agent-id={agent.agentId}>
              <td title={agent.description}>
                {agent.name} {agent.status !== 'active' ? <span class="badge bad">{agent.status}</span> : null}
              </td>
              <td title={agent.agentId}>
                <code>{shortId(agent.agentId)}</code>
              </td>
              <td>{agent.origin}</td>
              <td>
                <span class={`badge ${TONE[agent.health.status] ?? 'muted'}`} data-testid="registry-health">
                  {agent.health.status}
                </span>{' '}
                <span class="muted">
                  {agent.health.reason}
                  {agent.health.latencyMs !== undefined ? ` · ${agent.health.latencyMs} ms` : ''}
                </span>
              </td>
              <td>{agent.skills.join(', ')}</td>
              <td>
                <a href={agentHref(agent.origin)} data-testid="registry-open">
                  Open
                </a>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
