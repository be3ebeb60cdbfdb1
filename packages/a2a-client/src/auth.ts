import type { AgentCard } from '@a2aplane/a2a-types';
import type { CardVerificationResult } from './errors.js';
/**
 * An outgoing HTTP request as an auth provider sees it: it may add headers or query parameters. The
 * method and the exact body sent (`undefined` for none) are there for request signers
 * (RFC 9421 HTTP Message Signatures, `Content-Digest`): a2a-identity's `createHttpRequestSigner` is an
 * `AuthProvider` that signs them. Interceptors run after auth: one that changes the URL or body
 * breaks such a signature.
 */
export interface AuthRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: Headers;
  /**
   * The JSON text over HTTP; the serialized request message over gRPC (whose transport presents a
   * call as a POST to `http://<target><method path>`, headers becoming metadata).
   */
  readonly body: string | Uint8Array | undefined;
}

/** The agent a client calls, as discovery found it: what `AuthProvider.forPeer` is given. */
export interface AuthPeer {
  readonly card: AgentCard;
  /** Discovery's verdict on the card's signature: `valid` (the signer's key, its AgentID) or `no-signature`. */
  readonly verification: CardVerificationResult;
}

/** Adds credentials to requests; may refresh them once after a 401. */
export interface AuthProvider {
  apply(request: AuthRequest): void | Promise<void>;
  /** Called after a 401; return true to have the request sent once more. */
  onUnauthorized?(): boolean | Promise<boolean>;
  /**
   * The provider to use with one agent, called once its card is discovered (not for a card given
   * to the client as is). a2a-identity's request signer answers with one that signs with the fast
   * path (hmac-sha256, decision 0037) when the card was verified and advertises it.
   */
  forPeer?(peer: AuthPeer): AuthProvider;
}

export interface BearerAuthOptions {
  /** Returns the current token. */
  getToken: () => string | Promise<string>;
  /** Obtains a fresh token after a 401; the request is then retried once. */
  refresh?: () => void | Promise<void>;
}

/** `Authorization: Bearer <token>`; on a 401, refreshes once and retries. */
export function bearerAuth(options: BearerAuthOptions): AuthProvider {
  if (typeof options?.getToken !== 'function') {
    throw new TypeError(`expected getToken to be a function, got ${typeof options?.getToken}`);
  }
  const provider: AuthProvider = {
    async apply(request) {
      request.headers.set('Authorization', `Bearer ${await options.getToken()}`);
    },
  };
  const { refresh } = options;
  if (refresh) {
    provider.onUnauthorized = async () => {
      await refresh();
      return true;
    };
  }
  return provider;
}

export interface ApiKeyAuthOptions {
  /** Header or query parameter name, such as `X-API-Key`. */
  name: string;
  value: string | (() => string | Promise<string>);
  location: 'header' | 'query';
}

/** An API key in a header or query parameter (spec §4.5 `APIKeySecurityScheme`). */
export function apiKeyAuth(options: ApiKeyAuthOptions): AuthProvider {
  if (typeof options?.name !== 'string' || options.name === '') {
    throw new TypeError(`expected name to be a non-empty string, got ${typeof options?.name}`);
  }
  if (options.location !== 'header' && options.location !== 'query') {
    throw new TypeError(`expected location to be 'header' or 'query', got ${String(options.location)}`);
  }
  return {
    async apply(request) {
      const value = typeof options.value === 'function' ? await options.value() : options.value;
      if (options.location === 'header') request.headers.set(options.name, value);
      else request.url.searchParams.set(options.name, value);
    },
  };
}
