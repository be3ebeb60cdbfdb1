import { UnauthenticatedError } from '@a2aplane/a2a-types';
import type { AgentCard } from '@a2aplane/a2a-types';
import type { AuthContext, Authenticator, AuthRequest, Principal } from './types.js';

/** What the authenticator hands the verifier (structurally a2a-identity's `VerifiableRequest`). */
export interface SignedRequestView {
  method: string;
  authority: string;
  target: string;
  headers: Record<string, string | undefined>;
  body?: Uint8Array | undefined;
  /** The server's own authorities (`AuthContext.authorities`): the verifier's default for its relay check. */
  authorities?: readonly string[] | undefined;
}

/** Structurally a2a-identity's `createHttpSignatureVerifier(...)`. */
export interface HttpSignatureVerifierLike {
  verify(
    request: SignedRequestView,
  ): Promise<
    { ok: true; agentId: string; created: number; expires: number; alg?: string } | { ok: false; reason: string; detail?: string }
  >;
}

export interface HttpSignatureAuthenticatorOptions {
  /** `createHttpSignatureVerifier({ resolveKey })` of a2a-identity: pinned keys or callers' signed cards. */
  verifier: HttpSignatureVerifierLike;
  /**
   * Authenticates requests that carry no signature: `createAuthenticator(...)` for the card's API
   * key / bearer schemes, so peers that do not sign keep working. Without it unsigned requests are
   * refused, unless `allowAnonymous`.
   */
  fallback?: Authenticator;
  /** Without a fallback: let unsigned requests through anonymously. Default false. */
  allowAnonymous?: boolean;
  /** `Principal.scheme` of signed callers. Default `httpSignature`. */
  schemeName?: string;
}

/**
 * Verified callers (RFC 9421): a request signed with the caller's Ed25519 key is authenticated as
 * its AgentID (`Principal.id` and `Principal.agentId`); a signature that is present but fails
 * (replayed, altered body, expired, unknown key...) is refused, never passed to the fallback; an
 * unsigned request goes to `fallback`.
 */
export function createHttpSignatureAuthenticator(options: HttpSignatureAuthenticatorOptions): Authenticator {
  if (typeof options?.verifier?.verify !== 'function') {
    throw new TypeError(
      `expected options.verifier with verify(), got ${options?.verifier === undefined ? 'undefined' : typeof options.verifier}`,
    );
  }
  if (options.fallback !== undefined && typeof options.fallback !== 'function') {
    throw new TypeError(`expected options.fallback to be an Authenticator function, got ${typeof options.fallback}`);
  }
  const scheme = options.schemeName ?? 'httpSignature';
  const { verifier, fallback } = options;
  const principalOf = (result: Awaited<ReturnType<HttpSignatureVerifierLike['verify']>>): Principal => {
    if (!result.ok) throw new UnauthenticatedError({ message: `The request signature was refused (${result.reason}).` });
    const claims: Record<string, unknown> = { created: result.created, expires: result.expires };
    if (result.alg !== undefined) claims.alg = result.alg;
    return { id: result.agentId, scheme, agentId: result.agentId, claims };
  };
  // Not an async function: the verification's promise is handed on, so a signed request costs one
  // promise here rather than an async frame kept alive across the await.
  return (request: AuthRequest, context?: AuthContext): Promise<Principal | undefined> => {
    const headers = request.headers;
    if (headers['signature-input'] === undefined && headers.signature === undefined) {
      try {
        if (fallback) return Promise.resolve(fallback(request));
      } catch (error) {
        return Promise.reject(error);
      }
      if (options.allowAnonymous === true) return Promise.resolve(undefined);
      return Promise.reject(new UnauthenticatedError({ message: 'A signed request (RFC 9421) is required.' }));
    }
    return verifier
      .verify({
        method: request.method,
        authority: headers.host ?? '',
        target: request.target ?? '/',
        headers,
        body: request.body,
        authorities: context?.authorities,
      })
      .then(principalOf);
  };
}

/**
 * The authorities (`host[:port]`, lower case, default ports left out as in a `Host` header) of
 * the card's interface URLs: what the server tells its authenticator it is reached by. A gRPC
 * interface's bare `host:port` target reads as the host of `http://host:port`, as the gRPC
 * binding presents a call's `:authority`.
 */
export function cardAuthorities(card: AgentCard): string[] {
  const names = new Set<string>();
  for (const entry of card.supportedInterfaces ?? []) {
    try {
      const host = new URL(entry.url.includes('://') ? entry.url : `http://${entry.url}`).host.toLowerCase();
      if (host !== '') names.add(host);
    } catch {
      // A card URL that does not parse names no authority.
    }
  }
  return [...names];
}
