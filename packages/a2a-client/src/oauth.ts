import type { AgentCard } from '@a2aplane/a2a-types';
import type { AuthProvider } from './auth.js';
import { checkTokenUrl, fetchJson, OAuthTokenError, type TokenSource, tokenSourceOf } from './oauth-token-endpoint.js';

/** A token as a flow returns it. `expiresInSec` absent: treated as 5 minutes. */
export interface OAuthToken {
  accessToken: string;
  expiresInSec?: number;
  refreshToken?: string;
}

/** What a custom flow is given: the token endpoint (already SSRF-checked), the scopes and the card scheme. */
export interface OAuthFlowRequest {
  tokenUrl: string;
  scopes: readonly string[];
  resource?: string;
  card?: AgentCard;
  /** A refresh token from the previous answer, if the endpoint gave one. */
  refreshToken?: string;
  fetch: typeof fetch;
}

export interface OAuthClientCredentialsOptions {
  clientId: string;
  clientSecret: string;
  /** Scopes to request. Default: none (the provider's default for the client). */
  scopes?: readonly string[];
  /** RFC 8707 `resource` (the agent's audience), when the provider needs one. */
  resource?: string;
  /** The token endpoint. Default: read from the card's securitySchemes by `forPeer`. */
  tokenUrl?: string;
  /** The card scheme to use. Default: the first oauth2 client-credentials scheme, else the first openIdConnect one. */
  schemeName?: string;
  /** Accept `http://` token and discovery URLs on loopback hosts (development only). Default false. */
  allowInsecureLoopback?: boolean;
  /** A token is renewed this long before it expires. Default 30 000 ms. */
  refreshMarginMs?: number;
  /** Deadline of each token and discovery request. Default 10 000 ms. */
  timeoutMs?: number;
  /** Another grant (device code, RFC 8693 token exchange, ...): replaces the client-credentials request. */
  flow?: (request: OAuthFlowRequest) => Promise<OAuthToken>;
  fetch?: typeof fetch;
  /** Clock, for tests. */
  now?: () => number;
}

interface Cached {
  token: OAuthToken;
  expiresAt: number;
}

/**
 * Bearer tokens from the card's OAuth 2 client-credentials flow (RFC 6749 §4.4) or its OpenID
 * provider's token endpoint: cached until shortly before expiry, one request in flight per
 * endpoint and scope set, renewed with the refresh token when one was given, and fetched afresh
 * once after a 401. Token and discovery URLs are https only unless loopback is allowed.
 */
export function oauthClientCredentials(options: OAuthClientCredentialsOptions): AuthProvider {
  if (typeof options?.clientId !== 'string' || options.clientId === '' || typeof options.clientSecret !== 'string') {
    throw new TypeError('expected clientId (non-empty) and clientSecret to be strings');
  }
  const loopback = options.allowInsecureLoopback === true;
  if (options.tokenUrl !== undefined) checkTokenUrl(options.tokenUrl, loopback);
  const scopes = [...(options.scopes ?? [])];
  const margin = options.refreshMarginMs ?? 30_000;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const now = options.now ?? Date.now;
  const cache = new Map<string, Cached>();
  const inFlight = new Map<string, Promise<Cached>>();
  const discovered = new Map<string, Promise<string>>();
  const basic = `Basic ${btoa(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`)}`;

  const clientCredentials = async (request: OAuthFlowRequest): Promise<OAuthToken> => {
    const body = new URLSearchParams(
      request.refreshToken ? { grant_type: 'refresh_token', refresh_token: request.refreshToken } : { grant_type: 'client_credentials' },
    );
    if (request.scopes.length > 0) body.set('scope', request.scopes.join(' '));
    if (request.resource) body.set('resource', request.resource);
    const json = await fetchJson(
      request.tokenUrl,
      {
        method: 'POST',
        headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body,
      },
      timeoutMs,
      fetchImpl,
    );
    if (typeof json.access_token !== 'string' || json.access_token === '')
      throw new OAuthTokenError('the token endpoint answered without an access_token');
    const token: OAuthToken = { accessToken: json.access_token };
    if (typeof json.expires_in === 'number' && json.expires_in > 0) token.expiresInSec = json.expires_in;
    if (typeof json.refresh_token === 'string') token.refreshToken = json.refresh_token;
    return token;
  };
  const flow = options.flow ?? clientCredentials;

  const tokenEndpoint = (source: TokenSource): Promise<string> => {
    if (source.kind === 'token-url') return Promise.resolve(checkTokenUrl(source.url, loopback));
    let pending = discovered.get(source.url);
    if (!pending) {
      pending = fetchJson(
        checkTokenUrl(source.url, loopback, 'openIdConnectUrl'),
        { headers: { accept: 'application/json' } },
        timeoutMs,
        fetchImpl,
      ).then((document) => {
        if (typeof document.token_endpoint !== 'string') throw new OAuthTokenError('the discovery document has no token_endpoint');
        return checkTokenUrl(document.token_endpoint, loopback, 'token_endpoint');
      });
      pending.catch(() => discovered.delete(source.url));
      discovered.set(source.url, pending);
    }
    return pending;
  };

  const obtain = async (tokenUrl: string, card: AgentCard | undefined): Promise<Cached> => {
    const key = `${tokenUrl} ${scopes.join(' ')} ${options.resource ?? ''}`;
    const cached = cache.get(key);
    if (cached && cached.expiresAt - margin > now()) return cached;
    let pending = inFlight.get(key);
    if (!pending) {
      const request: OAuthFlowRequest = { tokenUrl, scopes, fetch: fetchImpl };
      if (options.resource !== undefined) request.resource = options.resource;
      if (card !== undefined) request.card = card;
      pending = (async () => {
        let token: OAuthToken | undefined;
        if (cached?.token.refreshToken) {
          // A refused refresh falls back to a new grant.
          token = await flow({ ...request, refreshToken: cached.token.refreshToken }).catch(() => undefined);
        }
        token ??= await flow(request);
        const entry = { token, expiresAt: now() + (token.expiresInSec ?? 300) * 1000 };
        cache.set(key, entry);
        return entry;
      })().finally(() => inFlight.delete(key));
      inFlight.set(key, pending);
    }
    return pending;
  };

  const bound = (endpoint: () => Promise<string>, card: AgentCard | undefined): AuthProvider => {
    let lastUrl: string | undefined;
    return {
      async apply(request) {
        lastUrl = await endpoint();
        const { token } = await obtain(lastUrl, card);
        request.headers.set('Authorization', `Bearer ${token.accessToken}`);
      },
      onUnauthorized() {
        // The cached token was refused: forget it so the one retry fetches a fresh one.
        if (lastUrl === undefined) return false;
        const prefix = `${lastUrl} `;
        for (const key of cache.keys()) if (key.startsWith(prefix)) cache.delete(key);
        return true;
      },
    };
  };

  const unbound = bound(async () => {
    if (options.tokenUrl === undefined) {
      throw new OAuthTokenError('no tokenUrl: pass options.tokenUrl or let the client discover the agent card');
    }
    return options.tokenUrl;
  }, undefined);
  return {
    ...unbound,
    forPeer({ card }) {
      if (options.tokenUrl !== undefined) return bound(async () => options.tokenUrl as string, card);
      const source = tokenSourceOf(card, options.schemeName);
      if (source === undefined) {
        throw new OAuthTokenError(
          `the card of ${card.name} declares no oauth2 client-credentials or openIdConnect scheme${options.schemeName ? ` named ${options.schemeName}` : ''}`,
        );
      }
      return bound(() => tokenEndpoint(source), card);
    },
  };
}
