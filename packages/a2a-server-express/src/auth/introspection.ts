import { checkProviderUrl, fetchJsonObject } from './oauth-metadata.js';
import { scopesOf } from './jwt-verifier.js';
import type { TokenVerifier } from './types.js';

export interface IntrospectionVerifierOptions {
  /** The RFC 7662 introspection endpoint. */
  url: string;
  /** This resource server's credentials at the provider (HTTP Basic, RFC 7662 §2.1). */
  clientId: string;
  clientSecret: string;
  /** When set, an active token must name one of these in `aud`. */
  audience?: string | readonly string[];
  /** Deadline of each introspection call. Default 5000 ms. */
  timeoutMs?: number;
  /** How long an answer is reused for the same token, capped by its `exp`. Default 30 000 ms; 0 disables. */
  cacheMs?: number;
  /** Accept an `http://` endpoint on a loopback host (development and tests only). Default false. */
  allowInsecureLoopback?: boolean;
  fetch?: typeof fetch;
}

const MAX_CACHED = 10_000;

/**
 * Verifies opaque tokens by asking the provider (RFC 7662). Inactive, expired or foreign-audience
 * tokens verify to nothing; answers are cached briefly so a busy caller does not cost a round trip per request.
 */
export function createIntrospectionVerifier(options: IntrospectionVerifierOptions): TokenVerifier {
  const url = checkProviderUrl(options?.url, 'url', options?.allowInsecureLoopback === true);
  if (typeof options.clientId !== 'string' || typeof options.clientSecret !== 'string') {
    throw new TypeError('expected clientId and clientSecret to be strings');
  }
  const authorization = `Basic ${Buffer.from(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`).toString('base64')}`;
  const audiences =
    options.audience === undefined ? undefined : new Set(typeof options.audience === 'string' ? [options.audience] : options.audience);
  const timeoutMs = options.timeoutMs ?? 5000;
  const cacheMs = options.cacheMs ?? 30_000;
  const cache = new Map<string, { expires: number; result: Awaited<ReturnType<TokenVerifier['verifyToken']>> }>();

  return {
    async verifyToken(token, schemeName) {
      const now = Date.now();
      const hit = cache.get(token);
      if (hit && hit.expires > now) return hit.result;
      const body = await fetchJsonObject(
        url,
        {
          method: 'POST',
          headers: { authorization, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
        },
        timeoutMs,
        options.fetch,
      );
      const exp = typeof body.exp === 'number' ? body.exp * 1000 : Number.POSITIVE_INFINITY;
      const aud = typeof body.aud === 'string' ? [body.aud] : Array.isArray(body.aud) ? body.aud : [];
      const audienceOk = audiences === undefined || aud.some((a) => typeof a === 'string' && audiences.has(a));
      // A client-credentials token has no user: its subject is the client (RFC 7662 §2.2 makes `sub` optional).
      const subject = typeof body.sub === 'string' && body.sub !== '' ? body.sub : body.client_id;
      const ok = body.active === true && exp > now && audienceOk && typeof subject === 'string' && subject !== '';
      const result = ok ? { id: subject as string, scheme: schemeName, scopes: scopesOf(body), claims: body } : undefined;
      if (cacheMs > 0) {
        if (cache.size >= MAX_CACHED) cache.clear();
        cache.set(token, { expires: Math.min(now + cacheMs, exp), result });
      }
      return result;
    },
  };
}
