import type { SecurityRequirement, SecurityScheme } from '@a2aplane/a2a-types';

/** Who made a request, as established by one security scheme. */
export interface Principal {
  id: string;
  /** The `securitySchemes` key that authenticated the request. */
  scheme: string;
  /**
   * The caller's AgentID (64 hex characters), set only by an authenticator that verified the
   * caller holds that agent's key (`createHttpSignatureAuthenticator`: an RFC 9421 signature by
   * it), or from a credential the operator issued to that agent. Governance authorizes by it and
   * keys policy, concurrency and budgets on it; absent, they key on `id`.
   */
  agentId?: string;
  /** OAuth 2 scopes the credential grants (`createJwtVerifier`, `createIntrospectionVerifier`); skills check them. */
  scopes?: readonly string[];
  claims?: Record<string, unknown>;
}

/** What an authenticator sees of a request. Header names are lower-case. */
export interface AuthRequest {
  headers: Record<string, string | undefined>;
  query: URLSearchParams;
  method: string;
  /** The request-target: path and query as received (`/a2a/jsonrpc`), for request signatures. */
  target?: string;
  /**
   * The raw request body, as read (never copied); `undefined` when not read (GET) or when a
   * framework parsed it before the A2A handler did. Request signatures check its digest.
   */
  body?: Uint8Array;
}

/** What the server tells an authenticator about itself. */
export interface AuthContext {
  /**
   * The authorities (`host[:port]`, lower case) of the URLs in the card's `supportedInterfaces`:
   * the names this server is reached by. Request signatures made for another authority are
   * refused by default (a signed request relayed from another server).
   */
  authorities: readonly string[];
}

/**
 * Resolves a request to a principal. Resolves `undefined` for an anonymous request (only when
 * anonymous access is allowed) and rejects with `UnauthenticatedError` for missing or invalid credentials.
 */
export type Authenticator = (request: AuthRequest, context?: AuthContext) => Promise<Principal | undefined>;

type MaybePromise<T> = T | Promise<T>;

export interface ApiKeyVerifier {
  verify(key: string, schemeName: string): MaybePromise<Principal | undefined>;
}
export interface BearerVerifier {
  verify(token: string, schemeName: string): MaybePromise<Principal | undefined>;
}
export interface BasicVerifier {
  verify(username: string, password: string, schemeName: string): MaybePromise<Principal | undefined>;
}
export interface TokenVerifier {
  verifyToken(token: string, schemeName: string): Promise<Principal | undefined>;
}

export interface AuthenticatorOptions {
  /** The agent card's `securitySchemes`. */
  securitySchemes: Record<string, SecurityScheme>;
  /** The agent card's `securityRequirements` (OR of ANDs). Absent: any one declared scheme suffices. */
  securityRequirements?: SecurityRequirement[];
  apiKey?: ApiKeyVerifier;
  /** HTTP `Bearer` schemes. */
  bearer?: BearerVerifier;
  /** HTTP `Basic` schemes. */
  basic?: BasicVerifier;
  oauth2?: TokenVerifier;
  openIdConnect?: TokenVerifier;
  /** Default false: a request without credentials is rejected with `UnauthenticatedError`. */
  allowAnonymous?: boolean;
}
