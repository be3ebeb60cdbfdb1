import type { IncomingMessage, ServerResponse } from 'node:http';
import { toOtlpJson } from '@a2aplane/a2a-otel/read';
import { sendError, sendJson } from '../http-helpers.js';
import type { ConsoleRoute } from '../types.js';
import type { RegistryView } from './registry.js';
import type { TraceStore } from './trace-store.js';

export const MESH_API_PREFIX = '/api/mesh/';

const TRACE_PATH = /^\/api\/mesh\/traces\/([0-9a-f]{32})$/;
/** Search words and skills are short; longer is refused rather than sent on. */
const MAX_QUERY_LENGTH = 200;

async function registryAnswer(registry: RegistryView | undefined, params: URLSearchParams, res: ServerResponse): Promise<void> {
  if (registry === undefined) return sendJson(res, 200, { configured: false, agents: [] });
  const text = params.get('query') ?? '';
  const skill = params.get('skill') ?? '';
  if (text.length > MAX_QUERY_LENGTH || skill.length > MAX_QUERY_LENGTH) return sendError(res, 400, 'query too long');
  try {
    const agents = await registry.list({ text, skill });
    sendJson(res, 200, { configured: true, url: registry.url, agents });
  } catch {
    // The reader's errors name the registry and the status; nothing more reaches the page.
    sendError(res, 502, `the registry ${registry.url} could not be read`);
  }
}

/**
 * The mesh views' API (under the console's session check): `GET /api/mesh/traces` (summaries,
 * newest first), `GET /api/mesh/traces/{traceId}` (the trace as OTLP JSON, read in the page by
 * `@a2aplane/a2a-otel/read`), `GET /api/mesh/registry?query=&skill=` (the registry's agents).
 */
export function createMeshApiRoute(store: TraceStore, registry: RegistryView | undefined): ConsoleRoute {
  return {
    method: 'GET',
    prefix: MESH_API_PREFIX,
    async handle(req: IncomingMessage, res: ServerResponse) {
      const url = new URL(req.url ?? '/', 'http://console');
      if (url.pathname === '/api/mesh/traces') return sendJson(res, 200, { traces: store.list() });
      const match = TRACE_PATH.exec(url.pathname);
      if (match) {
        const spans = store.get(match[1] as string);
        return spans === undefined
          ? sendError(res, 404, 'no such trace (not received, or evicted)')
          : sendJson(res, 200, toOtlpJson(spans));
      }
      if (url.pathname === '/api/mesh/registry') return registryAnswer(registry, url.searchParams, res);
      return sendError(res, 404, 'no such mesh API');
    },
  };
}
