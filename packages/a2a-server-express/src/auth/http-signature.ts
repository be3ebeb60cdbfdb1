import { ForbiddenError, UnauthenticatedError } from '@a2aplane/a2a-types';
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
    | { ok: true; agentId: string; created: number; expires: number; alg?: string }
    | { ok: false; reason: string; detail?: string; agentId?: string }
  >;
}

/** Why a signed request was refused: for the server's log and metrics only, never sent to the caller. */
export interface HttpSignatureRefusal {
  /** The verifier's reason (`unknown-key`, `bad-signature`, `replayed`, `not-allowed`...). */
  reason: string;
  detail: string | undefined;
  method: string;
  target: string;
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
  /**
   * Told the precise reason of every refused signature (log it, count it). The caller is told only
   * that its signature was refused, whatever the reason, so a stranger cannot learn which AgentIDs
   * this server trusts. Called synchronously; what it throws is ignored.
   */
  onRefused?: (refusal: HttpSignatureRefusal) => void;
}

/** The one answer every refused signature gets (issue 42): the reason goes to `onRefused` only. */
const SIGNATURE_REFUSED_MESSAGE = 'The request signature was refused.';

/**
 * Verified callers (RFC 9421): a request signed with the caller's Ed25519 key is authenticated as
 * its AgentID (`Principal.id` and `Principal.agentId`); a signature that is present but fails
 * (replayed, altered body, expired, unknown key...) is refused with one generic
 * `UNAUTHENTICATED` message (the precise reason goes to `onRefused`), never passed to the
 * fallback; a good signature from a caller the verifier's identity check does not allow is
 * `FORBIDDEN` (that caller proved who it is); an unsigned request goes to `fallback`.
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
  if (options.onRefused !== undefined && typeof options.onRefused !== 'function') {
    throw new TypeError(`expected options.onRefused to be a function, got ${typeof options.onRefused}`);
  }
  const scheme = options.schemeName ?? 'httpSignature';
  const { verifier, fallback, onRefused } = options;
  const refuse = (request: AuthRequest, result: { reason: string; detail?: string; agentId?: string }): never => {
    try {
      onRefused?.({ reason: result.reason, detail: result.detail, method: request.method, target: request.target ?? '/' });
    } catch {
      // A failing log must not change the answer.
    }
    if (result.reason === 'not-allowed' && typeof result.agentId === 'string') {
      throw new ForbiddenError({
        message: `agent ${result.agentId} is not allowed to call this agent`,
        metadata: { limit: 'allowlist', agentId: result.agentId },
      });
    }
    throw new UnauthenticatedError({ message: SIGNATURE_REFUSED_MESSAGE });
  };
  const principalOf = (request: AuthRequest, result: Awaited<ReturnType<HttpSignatureVerifierLike['verify']>>): Principal => {
    if (!result.ok) return refuse(request, result);
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
      .then((result) => principalOf(request, result));
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
