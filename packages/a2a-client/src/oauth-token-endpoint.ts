import type { AgentCard } from '@a2aplane/a2a-types';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * A token endpoint URL must be https (http only on loopback with the development flag), no userinfo.
 * The same rule as a2a-identity's `isAllowedJkuUrl`, kept here so the client's initial bundle does not load the verifier.
 */
export function checkTokenUrl(value: string, allowInsecureLoopback: boolean, what = 'token URL'): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  const loopback = url?.protocol === 'http:' && allowInsecureLoopback && LOOPBACK_HOSTS.has(url.hostname);
  if (url === undefined || (url.protocol !== 'https:' && !loopback) || url.username !== '' || url.password !== '') {
    throw new TypeError(
      `expected the ${what} to be an https URL (http only on loopback with allowInsecureLoopback), got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/** Where the card says to get a token: a client-credentials flow's `tokenUrl`, or an OpenID discovery URL. */
export type TokenSource = { kind: 'token-url'; scheme: string; url: string } | { kind: 'discovery'; scheme: string; url: string };

/**
 * Picks the card scheme to get a token for: `schemeName` when given, else the first `oauth2`
 * scheme with a client-credentials flow, else the first `openIdConnect` scheme.
 */
export function tokenSourceOf(card: AgentCard, schemeName?: string): TokenSource | undefined {
  const entries = Object.entries(card.securitySchemes ?? {}).filter(([name]) => schemeName === undefined || name === schemeName);
  for (const [name, scheme] of entries) {
    const flow = scheme.oauth2SecurityScheme?.flows?.clientCredentials;
    if (flow) return { kind: 'token-url', scheme: name, url: flow.tokenUrl };
  }
  for (const [name, scheme] of entries) {
    const url = scheme.openIdConnectSecurityScheme?.openIdConnectUrl;
    if (url) return { kind: 'discovery', scheme: name, url };
  }
  return undefined;
}

const MAX_RESPONSE_CHARS = 64 * 1024;

/** POSTs or GETs JSON with a deadline and size cap; an `OAuthTokenError` on any failure, without the body's secrets. */
export async function fetchJson(
  url: string,
  init: RequestInit,
  timeoutMs: number,
  fetchImpl: typeof fetch,
): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetchImpl(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
  } catch {
    throw new OAuthTokenError(`the token endpoint ${new URL(url).origin} could not be reached`);
  }
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = text.length <= MAX_RESPONSE_CHARS ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new OAuthTokenError(`${new URL(url).origin} answered HTTP ${response.status} without a JSON object`);
  }
  const record = body as Record<string, unknown>;
  if (!response.ok) {
    const code = typeof record.error === 'string' ? record.error.slice(0, 64) : 'unknown';
    throw new OAuthTokenError(`the token endpoint refused the request: HTTP ${response.status} ${code}`);
  }
  return record;
}

/** A token could not be obtained (the endpoint failed or refused); never carries a secret. */
export class OAuthTokenError extends Error {
  override readonly name = 'OAuthTokenError';
}
