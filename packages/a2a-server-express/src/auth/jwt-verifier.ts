import type { SecurityScheme } from '@a2aplane/a2a-types';
import { createRemoteJWKSet, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { checkProviderUrl, fetchProviderMetadata } from './oauth-metadata.js';
import type { Principal, TokenVerifier } from './types.js';

/** Asymmetric algorithms only: `none` and HMAC (which a public key must never be used as) are never accepted. */
export const DEFAULT_JWT_ALGORITHMS: readonly string[] = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];
const MAX_VERIFIED_CACHED = 10_000;
const FORBIDDEN_ALGORITHMS = new Set(['none', 'HS256', 'HS384', 'HS512']);

export interface JwtVerifierOptions {
  /** The card's `securitySchemes`: `openIdConnect` schemes are discovered from their `openIdConnectUrl`, `oauth2` ones from `oauth2MetadataUrl` or `jwksUrl`. */
  securitySchemes: Record<string, SecurityScheme>;
  /** The `aud` a token must carry (this agent). Required: a token minted for another service is refused. */
  audience: string | readonly string[];
  /** The `iss` a token must carry. Required for `oauth2` schemes without metadata; checked against discovery otherwise. */
  issuer?: string;
  /** The JWKS of an `oauth2` scheme that has no `oauth2MetadataUrl`. */
  jwksUrl?: string;
  /** Default {@link DEFAULT_JWT_ALGORITHMS}; `none` and HS* are refused at construction. */
  algorithms?: readonly string[];
  /** Allowed clock difference for `exp`/`nbf`/`iat`, seconds. Default 30. */
  clockToleranceSec?: number;
  /** Tokens longer than this are refused before parsing. Default 8192 characters. */
  maxTokenLength?: number;
  /** Minimum time between two JWKS fetches (an unknown `kid` refreshes at most this often). Default 30 000 ms. */
  jwksCooldownMs?: number;
  /** How long a fetched JWKS is trusted before it is fetched again (key rotation). Default 600 000 ms. */
  jwksCacheMaxAgeMs?: number;
  /** Deadline of each discovery and JWKS fetch. Default 5000 ms. */
  timeoutMs?: number;
  /** Accept `http://` provider URLs on loopback hosts (development and tests only). Default false. */
  allowInsecureLoopback?: boolean;
  /**
   * How long a verified token's principal is reused for the same token string, never past its `exp`
   * (a caller sends one token for many requests; re-verifying the signature each time costs ~100 µs).
   * Default 60 000 ms; 0 disables. A key removed from the JWKS stops tokens within this time.
   */
  verifiedCacheMs?: number;
  /** Clock in ms, for tests. Default `Date.now`. */
  now?: () => number;
  /** Verifies tokens that are not JWTs (opaque tokens), such as `createIntrospectionVerifier`. Default: refused. */
  opaque?: TokenVerifier;
}

interface SchemeKeys {
  issuer: string;
  keys: JWTVerifyGetKey;
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`expected ${name} to be a non-negative number, got ${value}`);
  return value;
}

/** The scopes a token grants: the `scope` claim (space-separated, RFC 8693 §4.2) or `scp` (a list). */
export function scopesOf(payload: Record<string, unknown>): string[] {
  const { scope, scp } = payload;
  if (typeof scope === 'string') return scope.split(' ').filter((s) => s !== '');
  if (Array.isArray(scp)) return scp.filter((s): s is string => typeof s === 'string');
  if (typeof scp === 'string') return scp.split(' ').filter((s) => s !== '');
  return [];
}

/** A principal from verified claims: the subject is the id, the scopes go to skill checks and governance. */
function principalFromClaims(payload: JWTPayload, schemeName: string): Principal | undefined {
  if (typeof payload.sub !== 'string' || payload.sub === '') return undefined;
  return { id: payload.sub, scheme: schemeName, scopes: scopesOf(payload), claims: { ...payload } };
}

const looksLikeJwt = (token: string) => /^[\w-]+\.[\w-]+\.[\w-]*$/.test(token);

/**
 * Verifies JWT bearer tokens for the card's `oauth2` and `openIdConnect` schemes (spec §4.5) on
 * `jose`: signature against the provider's JWKS (cached, refreshed on rotation and, at most once
 * per cooldown, on an unknown `kid`), `iss`, `aud`, `exp` and `nbf` with a small clock skew, and an
 * asymmetric algorithm allowlist. Use it as `oauth2` and/or `openIdConnect` of `createAuthenticator`.
 */
export function createJwtVerifier(options: JwtVerifierOptions): TokenVerifier {
  if (typeof options !== 'object' || options === null || typeof options.securitySchemes !== 'object') {
    throw new TypeError('expected options with securitySchemes, got none');
  }
  const audience = typeof options.audience === 'string' ? options.audience : [...(options.audience ?? [])];
  if (audience.length === 0) throw new TypeError('expected audience to be a non-empty string or list, got none');
  const algorithms = [...(options.algorithms ?? DEFAULT_JWT_ALGORITHMS)];
  for (const alg of algorithms) {
    if (FORBIDDEN_ALGORITHMS.has(alg)) throw new RangeError(`algorithm ${alg} cannot be allowed for tokens verified with public keys`);
  }
  const clockTolerance = positive(options.clockToleranceSec, 30, 'clockToleranceSec');
  const maxTokenLength = positive(options.maxTokenLength, 8192, 'maxTokenLength');
  const timeoutMs = positive(options.timeoutMs, 5000, 'timeoutMs');
  const loopback = options.allowInsecureLoopback === true;
  const jwksOptions = {
    cooldownDuration: positive(options.jwksCooldownMs, 30_000, 'jwksCooldownMs'),
    cacheMaxAge: positive(options.jwksCacheMaxAgeMs, 600_000, 'jwksCacheMaxAgeMs'),
    timeoutDuration: timeoutMs,
  };
  const remote = (jwksUri: string, issuer: string): SchemeKeys => ({
    issuer,
    keys: createRemoteJWKSet(checkProviderUrl(jwksUri, 'jwksUrl', loopback), jwksOptions),
  });

  // Per scheme: where its keys come from, resolved lazily (discovery happens on first use, and again after a failure).
  const resolvers = new Map<string, () => Promise<SchemeKeys>>();
  const cacheMs = positive(options.verifiedCacheMs, 60_000, 'verifiedCacheMs');
  const now = options.now ?? Date.now;
  const verified = new Map<string, { until: number; principal: Principal }>();
  for (const [name, scheme] of Object.entries(options.securitySchemes)) {
    const metadataUrl = scheme.openIdConnectSecurityScheme?.openIdConnectUrl ?? scheme.oauth2SecurityScheme?.oauth2MetadataUrl;
    if (metadataUrl !== undefined) {
      const url = checkProviderUrl(metadataUrl, `securitySchemes.${name} metadata URL`, loopback);
      let pending: Promise<SchemeKeys> | undefined;
      resolvers.set(name, () => {
        pending ??= fetchProviderMetadata(url, options.issuer, timeoutMs, loopback).then(
          (metadata) => remote(metadata.jwksUri, metadata.issuer),
          (error: unknown) => {
            pending = undefined;
            throw error;
          },
        );
        return pending;
      });
    } else if (scheme.oauth2SecurityScheme) {
      if (options.issuer === undefined || options.jwksUrl === undefined) {
        throw new TypeError(`securitySchemes.${name} has no oauth2MetadataUrl: options.issuer and options.jwksUrl are required`);
      }
      const keys = remote(options.jwksUrl, options.issuer);
      resolvers.set(name, async () => keys);
    }
  }
  if (resolvers.size === 0) throw new TypeError('expected at least one oauth2 or openIdConnect scheme in securitySchemes, got none');

  return {
    async verifyToken(token, schemeName) {
      const resolve = resolvers.get(schemeName);
      if (resolve === undefined || token.length > maxTokenLength) return undefined;
      if (!looksLikeJwt(token)) return options.opaque ? options.opaque.verifyToken(token, schemeName) : undefined;
      const cacheKey = `${schemeName} ${token}`;
      const hit = verified.get(cacheKey);
      if (hit !== undefined) {
        if (hit.until > now()) return { ...hit.principal };
        verified.delete(cacheKey);
      }
      const { issuer, keys } = await resolve();
      try {
        const currentDate = new Date(now());
        const { payload } = await jwtVerify(token, keys, { issuer, audience, algorithms, clockTolerance, currentDate });
        const principal = principalFromClaims(payload, schemeName);
        if (principal !== undefined && cacheMs > 0 && typeof payload.exp === 'number') {
          // Bounded: a flood of distinct valid tokens clears the cache instead of growing it.
          if (verified.size >= MAX_VERIFIED_CACHED) verified.clear();
          verified.set(cacheKey, { until: Math.min(currentDate.getTime() + cacheMs, payload.exp * 1000), principal });
        }
        return principal === undefined ? undefined : { ...principal };
      } catch {
        // Bad signature, claims, algorithm or an unreachable JWKS: all are "not valid" to the caller.
        return undefined;
      }
    },
  };
}
