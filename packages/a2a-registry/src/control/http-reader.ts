import { RegistryRequestError } from '../core/errors.js';
import type { AgentQuery, AgentView, AgentViewPage, RegistryReader } from '../core/types.js';

export interface RegistryHttpReaderOptions {
  /** The registry's base URL (e.g. `https://registry.example.com`). */
  baseUrl: string;
  fetch?: typeof fetch;
  /** Per-request timeout. Default 5000 ms. */
  timeoutMs?: number;
}

/** Reads a registry over its HTTP binding: what a server or client of another process uses. */
export function createRegistryHttpReader(options: RegistryHttpReaderOptions): RegistryReader {
  if (typeof options?.baseUrl !== 'string' || !URL.canParse(options.baseUrl)) {
    throw new TypeError(`expected baseUrl to be an absolute URL, got ${JSON.stringify(options?.baseUrl)}`);
  }
  const base = options.baseUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 5000;

  async function get<T>(path: string, signal: AbortSignal | undefined, notFound: T): Promise<T> {
    const doFetch = options.fetch ?? globalThis.fetch;
    const timeout = AbortSignal.timeout(timeoutMs);
    let response: Response;
    try {
      response = await doFetch(`${base}${path}`, {
        headers: { accept: 'application/json' },
        redirect: 'error',
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      throw new RegistryRequestError(0, 'UNREACHABLE', `registry ${base} could not be reached`, { cause: error });
    }
    if (response.status === 404) {
      await response.body?.cancel();
      return notFound;
    }
    if (!response.ok) {
      const text = await response.text().catch(() => '');
      throw new RegistryRequestError(response.status, 'HTTP', `registry answered HTTP ${response.status}: ${text.slice(0, 200)}`);
    }
    return (await response.json()) as T;
  }

  const listPath = (query: AgentQuery): string => {
    const params = new URLSearchParams();
    if (query.skill !== undefined) params.set('skill', query.skill);
    if (query.tag !== undefined) params.set('tag', query.tag);
    if (query.text !== undefined) params.set('query', query.text);
    if (query.origin !== undefined) params.set('origin', query.origin);
    if (query.health !== undefined) params.set('health', query.health.join(','));
    if (query.includeInactive) params.set('status', 'all');
    if (query.limit !== undefined) params.set('pageSize', String(query.limit));
    if (query.cursor !== undefined) params.set('pageToken', query.cursor);
    const text = params.toString();
    return text === '' ? '/agents' : `/agents?${text}`;
  };

  return {
    lookupAgent(agentId, callOptions) {
      if (!/^[0-9a-f]{64}$/.test(agentId)) return Promise.resolve(undefined);
      return get<AgentView | undefined>(`/agents/${agentId}`, callOptions?.signal, undefined);
    },
    async findByOrigin(origin, callOptions) {
      const page = await get<{ agents: AgentView[] }>(listPath({ origin, includeInactive: true, limit: 1 }), callOptions?.signal, {
        agents: [],
      });
      return page.agents[0];
    },
    async searchAgents(query, callOptions) {
      const page = await get<{ agents: AgentView[]; nextPageToken?: string }>(listPath(query), callOptions?.signal, { agents: [] });
      return { agents: page.agents, ...(page.nextPageToken ? { nextCursor: page.nextPageToken } : {}) } satisfies AgentViewPage;
    },
  };
}
