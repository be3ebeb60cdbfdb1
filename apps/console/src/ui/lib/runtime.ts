import { apiFetch, apiJson } from '../api.js';
import { createConsoleFetch, type ReachMode } from './console-fetch.js';
import { createExchangeLog } from './exchange-log.js';

/** The page's one raw log and agent-bound fetch, shared by every view. */
export function createRuntime() {
  const log = createExchangeLog();
  const state = { mode: 'auto' as ReachMode, secretHeaders: new Set<string>(), secretParams: new Set<string>() };
  const fetch = createConsoleFetch({
    log,
    mode: () => state.mode,
    secretHeaders: () => state.secretHeaders,
    secretParams: () => state.secretParams,
    backend: apiFetch,
  });
  return {
    log,
    fetch,
    state,
    /** Lets the relay reach these URLs' origins (what the user entered, its card's interfaces). */
    async allowRelay(urls: string[]): Promise<{ accepted: string[]; refused: { url: string; reason: string }[] }> {
      return apiJson('/api/relay/targets', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ urls }),
      });
    },
  };
}

export type Runtime = ReturnType<typeof createRuntime>;

/** The page's runtime (one per page load). */
export const runtime = createRuntime();
