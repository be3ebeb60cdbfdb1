import { UnauthenticatedError } from '@a2aplane/a2a-types';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);
/** A discovery or introspection document larger than this is refused (they are a few KiB). */
const MAX_DOCUMENT_BYTES = 64 * 1024;

/** Parses an identity-provider URL: HTTPS only, loopback HTTP only with `allowInsecureLoopback`, no userinfo. */
export function checkProviderUrl(value: string, what: string, allowInsecureLoopback: boolean): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`expected ${what} to be an absolute URL, got ${JSON.stringify(value)}`);
  }
  const loopback = url.protocol === 'http:' && allowInsecureLoopback && LOOPBACK_HOSTS.has(url.hostname);
  if ((url.protocol !== 'https:' && !loopback) || url.username || url.password) {
    throw new TypeError(`expected ${what} to be an https URL (http only on loopback with allowInsecureLoopback), got ${url.origin}`);
  }
  return url;
}

/** Fetches a JSON object with a deadline and a size cap; any failure is an `UnauthenticatedError` (no detail leaks). */
export async function fetchJsonObject(
  url: URL,
  init: RequestInit,
  timeoutMs: number,
  fetchImpl: typeof fetch = fetch,
): Promise<Record<string, unknown>> {
  const failure = () => new UnauthenticatedError({ message: 'The identity provider could not be reached.' });
  let text: string;
  try {
    const response = await fetchImpl(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) throw failure();
    const length = Number(response.headers.get('content-length') ?? 0);
    if (length > MAX_DOCUMENT_BYTES) throw failure();
    text = await response.text();
  } catch {
    throw failure();
  }
  if (text.length > MAX_DOCUMENT_BYTES) throw failure();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw failure();
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw failure();
  return parsed as Record<string, unknown>;
}

interface ProviderMetadata {
  issuer: string;
  jwksUri: string;
}

/**
 * Reads an OpenID Connect discovery document or RFC 8414 metadata. The document's `issuer` must be
 * the expected one when given (OIDC Discovery §4.3: a mix-up defence).
 */
export async function fetchProviderMetadata(
  url: URL,
  expectedIssuer: string | undefined,
  timeoutMs: number,
  allowInsecureLoopback: boolean,
  fetchImpl?: typeof fetch,
): Promise<ProviderMetadata> {
  const document = await fetchJsonObject(url, { headers: { accept: 'application/json' } }, timeoutMs, fetchImpl);
  const { issuer, jwks_uri: jwksUri } = document;
  if (typeof issuer !== 'string' || typeof jwksUri !== 'string' || (expectedIssuer !== undefined && issuer !== expectedIssuer)) {
    throw new UnauthenticatedError({ message: 'The identity provider metadata is not usable.' });
  }
  checkProviderUrl(jwksUri, 'jwks_uri', allowInsecureLoopback);
  return { issuer, jwksUri };
}
