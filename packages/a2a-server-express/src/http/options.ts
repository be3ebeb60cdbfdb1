import {
  DEFAULT_JSON_RPC_PATH,
  DEFAULT_REST_PATH,
  LEGACY_WELL_KNOWN_AGENT_CARD_PATH,
  WELL_KNOWN_AGENT_CARD_PATH,
} from '@a2aplane/a2a-types';
import type { CardSigner } from '../card/agent-card.js';
import type { CorsOptions } from './cors.js';

/** The options every HTTP binding (node:http, express, fetch) takes. */
export interface HttpHandlerOptions {
  jsonRpcPath?: string;
  /**
   * Base path of the HTTP+JSON binding (default `/a2a/rest`). Every path under it is answered
   * (unknown ones with an A2A 404); at the root (`'/'`) only the paths of A2A routes are.
   */
  restPath?: string;
  cardPath?: string;
  /** Where v0.3 clients look for the card (`/.well-known/agent.json`); served in v0.3 shape. `false` disables. */
  legacyCardPath?: string | false;
  /** Largest request body accepted; larger ones get 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /** SSE heartbeat interval in ms; 0 disables. Default 15 000. */
  heartbeatMs?: number;
  /** Signs the public card once, when the handler is created; structurally `signAgentCard` of a2a-identity. */
  cardSigner?: CardSigner;
  /** `Cache-Control: max-age` of the card (and of the JWKS). Default 300 seconds. */
  cardMaxAgeSeconds?: number;
  /**
   * A JWKS document to serve at `jwksPath`: the public keys a signed card's `jku` points at
   * (`createJwks` of a2a-identity), so a verifier can fetch them from the agent itself.
   */
  jwks?: { keys: readonly object[] };
  /** Where `jwks` is served. Default `/.well-known/jwks.json`. */
  jwksPath?: string;
  /**
   * Cross-origin calls from browser pages (off by default: no CORS header is sent, so a page of
   * another origin cannot read a reply). The card and JWKS are public documents and always allow any origin.
   */
  cors?: CorsOptions;
}

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Where a handler serves its `jwks` option unless `jwksPath` says otherwise. */
export const DEFAULT_JWKS_PATH = '/.well-known/jwks.json';

/** The mount points of one handler, defaults applied. */
export interface ResolvedPaths {
  jsonRpcPath: string;
  /** Without a trailing slash: `''` when mounted at the root. */
  restPath: string;
  cardPath: string;
  legacyCardPath: string | undefined;
  jwksPath: string | undefined;
}

export function resolvePaths(options: HttpHandlerOptions): ResolvedPaths {
  return {
    jsonRpcPath: options.jsonRpcPath ?? DEFAULT_JSON_RPC_PATH,
    restPath: (options.restPath ?? DEFAULT_REST_PATH).replace(/\/+$/, ''),
    cardPath: options.cardPath ?? WELL_KNOWN_AGENT_CARD_PATH,
    legacyCardPath: options.legacyCardPath === false ? undefined : (options.legacyCardPath ?? LEGACY_WELL_KNOWN_AGENT_CARD_PATH),
    jwksPath: options.jwks === undefined ? undefined : (options.jwksPath ?? DEFAULT_JWKS_PATH),
  };
}
