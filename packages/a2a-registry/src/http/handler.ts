import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import { AgentNotFoundError, AgentStateError, RegistryError } from '../core/errors.js';
import type { Registry } from '../core/registry.js';
import type { AgentQuery, AgentView } from '../core/types.js';
import { type AiCatalog, toCatalogEntry } from './catalog.js';
import { createOperatorAuthenticator, type OperatorTokens } from './operator-auth.js';
import { EnrollRequestSchema, listParamsToQuery, SearchRequestSchema, StatusChangeSchema, searchToQuery } from './requests.js';
import { BodyError, readJsonBody, sendError, sendJson } from './responses.js';

export interface RegistryHandlerOptions {
  /** Operator credentials by name (decision 0070); without any, every admin call is refused. */
  operatorTokens?: OperatorTokens;
  /** The registry's public base URL, for the catalog's `url`s. Default: path-absolute URLs (`/agents/…`). */
  publicUrl?: string;
  /** Name of the catalog's host. Default `a2aplane registry`. */
  displayName?: string;
  /** Largest request body. Default 262 144 bytes (a 64 KiB card, its JWKS, JSON escaping). */
  maxBodyBytes?: number;
  /** Most entries `/.well-known/ai-catalog.json` lists. Default 10 000. */
  maxCatalogEntries?: number;
  /** Told about unexpected failures (the caller only sees a 500 with no detail). */
  onError?: (error: unknown) => void;
}

export type RegistryRequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

const AGENT_PATH = /^\/agents\/([0-9a-f]{64})(\/card|\/jwks\.json)?$/;
const ADMIN_PATH = /^\/admin\/agents\/([0-9a-f]{64})\/(revoke|disable|enable)$/;

/** Maps a refusal to its status: the request was understood but the agent cannot be enrolled (422), or it clashes (409). */
const CONFLICTS = new Set(['revoked', 'key-retired', 'conflict']);

/**
 * The registry over node:http (decision 0071): AI Catalog, ARD search and listing, each agent's
 * signed card and current JWKS, and the operator's admin calls. Errors are
 * `{ error: { code, message } }` without stack traces; bodies are bounded and validated.
 */
export function createRegistryRequestHandler(registry: Registry, options: RegistryHandlerOptions = {}): RegistryRequestHandler {
  const authenticate = createOperatorAuthenticator(options.operatorTokens ?? {});
  const maxBody = options.maxBodyBytes ?? 262_144;
  const base = (options.publicUrl ?? '').replace(/\/+$/, '');
  const maxCatalog = options.maxCatalogEntries ?? 10_000;

  async function catalog(): Promise<AiCatalog> {
    const entries = [];
    let cursor: string | undefined;
    do {
      const page = await registry.searchAgents({ limit: 100, ...(cursor ? { cursor } : {}) });
      for (const agent of page.agents) entries.push(toCatalogEntry(agent, { baseUrl: base, inline: false }));
      cursor = page.nextCursor;
    } while (cursor !== undefined && entries.length < maxCatalog);
    return { specVersion: '1.0', host: { displayName: options.displayName ?? 'a2aplane registry' }, entries: entries.slice(0, maxCatalog) };
  }

  async function body<T>(req: IncomingMessage, res: ServerResponse, schema: z.ZodType<T>): Promise<T> {
    const value = await readJsonBody(req, res, maxBody);
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new BodyError(400, 'INVALID_REQUEST', `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
    }
    return parsed.data;
  }

  const page = (agents: AgentView[], next: string | undefined, key: string, map: (agent: AgentView) => unknown) => ({
    [key]: agents.map(map),
    ...(next ? { nextPageToken: next } : {}),
  });

  async function admin(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const operator = authenticate(req.headers.authorization);
    if (operator === undefined) {
      res.setHeader('www-authenticate', 'Bearer realm="registry"');
      return sendError(res, 401, 'UNAUTHORIZED', 'an operator credential is required');
    }
    if (path === '/admin/enroll') {
      const request = await body(req, res, EnrollRequestSchema);
      const result = await registry.enroll(request, { operator });
      if (!result.ok)
        return sendJson(res, CONFLICTS.has(result.reason) ? 409 : 422, {
          error: { code: 'ENROLLMENT_REFUSED', reason: result.reason, message: result.detail },
        });
      return sendJson(res, result.outcome === 'enrolled' ? 201 : 200, { outcome: result.outcome, agent: result.agent });
    }
    const match = ADMIN_PATH.exec(path);
    if (!match) return sendError(res, 404, 'NOT_FOUND', `no route ${path}`);
    const [, agentId, action] = match as unknown as [string, string, 'revoke' | 'disable' | 'enable'];
    const change = await body(req, res, StatusChangeSchema);
    const agent = action === 'enable' ? await registry.enable(agentId) : await registry[action](agentId, change.reason);
    return sendJson(res, 200, { agent });
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://registry.invalid');
    const path = url.pathname;
    const method = req.method ?? 'GET';
    if (path.startsWith('/admin/')) {
      if (method !== 'POST') return sendError(res, 405, 'METHOD_NOT_ALLOWED', 'admin calls are POST');
      return admin(req, res, path);
    }
    if (path === '/search') {
      if (method !== 'POST') return sendError(res, 405, 'METHOD_NOT_ALLOWED', 'search is POST');
      const search = await body(req, res, SearchRequestSchema);
      if (search.filters?.type !== undefined && search.filters.type !== 'application/a2a-agent-card+json') {
        return sendJson(res, 200, { results: [] });
      }
      const found = await registry.searchAgents(searchToQuery(search));
      return sendJson(
        res,
        200,
        page(found.agents, found.nextCursor, 'results', (agent) => toCatalogEntry(agent, { baseUrl: base, inline: true })),
      );
    }
    if (method !== 'GET' && method !== 'HEAD') return sendError(res, 405, 'METHOD_NOT_ALLOWED', `${path} is GET`);
    if (path === '/.well-known/ai-catalog.json') return sendJson(res, 200, await catalog(), { 'access-control-allow-origin': '*' });
    if (path === '/agents') {
      const query: AgentQuery | string = listParamsToQuery(url.searchParams);
      if (typeof query === 'string') return sendError(res, 400, 'INVALID_REQUEST', query);
      const found = await registry.searchAgents(query);
      return sendJson(
        res,
        200,
        page(found.agents, found.nextCursor, 'agents', (agent) => agent),
      );
    }
    const match = AGENT_PATH.exec(path);
    if (!match) return sendError(res, 404, 'NOT_FOUND', `no route ${path}`);
    const [, agentId, part] = match;
    const agent = await registry.lookupAgent(agentId as string);
    if (!agent) return sendError(res, 404, 'NOT_FOUND', `no enrolled agent ${agentId}`);
    if (part === undefined) return sendJson(res, 200, agent);
    const current = agent.agentId === agentId && agent.status === 'active';
    if (part === '/jwks.json') return sendJson(res, 200, { keys: current ? agent.keys : [] });
    if (!current) return sendError(res, 404, 'NOT_FOUND', `agent ${agentId} is ${agent.agentId === agentId ? agent.status : 'rotated'}`);
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(agent.cardText);
  }

  return (req, res) => {
    route(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (error instanceof BodyError) return sendError(res, error.status, error.code, error.message);
      if (AgentNotFoundError.isInstance(error)) return sendError(res, 404, 'NOT_FOUND', error.message);
      if (AgentStateError.isInstance(error)) return sendError(res, 409, 'INVALID_STATE', error.message);
      if (RegistryError.isInstance(error)) return sendError(res, 409, error.reason, error.message);
      options.onError?.(error);
      sendError(res, 500, 'INTERNAL', 'internal error');
    });
  };
}
