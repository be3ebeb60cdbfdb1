import { matchRestRoute } from '@a2aplane/a2a-types';
import type { ResolvedPaths } from './options.js';

/** Which of a handler's mounts a request is for. */
export type Route = { kind: 'card'; legacy: boolean } | { kind: 'jwks' } | { kind: 'json-rpc' } | { kind: 'rest'; subPath: string };

const JSON_RPC: Route = { kind: 'json-rpc' };
const CARD: Route = { kind: 'card', legacy: false };
const LEGACY_CARD: Route = { kind: 'card', legacy: true };
const JWKS: Route = { kind: 'jwks' };

/** The route of a request path (decoded URL path, no query); `undefined` when the path is not ours. */
export function routeOf(paths: ResolvedPaths, method: string, path: string): Route | undefined {
  if (path === paths.jsonRpcPath) return paths.jwksPath === path ? JWKS : JSON_RPC;
  if (paths.jwksPath !== undefined && path === paths.jwksPath) return JWKS;
  if (path === paths.cardPath) return CARD;
  if (paths.legacyCardPath !== undefined && path === paths.legacyCardPath) return LEGACY_CARD;
  const restPath = paths.restPath;
  // Mounted at the root (`restPath: '/'`), REST claims only the paths of A2A routes, so the
  // application's other paths fall through (express `next()`, a 404, the caller's own handler).
  if (restPath === '') return matchRestRoute(method, path) !== undefined ? { kind: 'rest', subPath: path || '/' } : undefined;
  if (path === restPath || path.startsWith(`${restPath}/`)) return { kind: 'rest', subPath: path.slice(restPath.length) || '/' };
  return undefined;
}
