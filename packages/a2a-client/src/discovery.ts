import type { AgentCard } from '@a2aplane/a2a-types';
import type { AuthProvider } from './auth.js';
import type { CardResolution, CardResolutionKit } from './card-resolution.js';
import { chunkLoader } from './chunk-loader.js';
import {
  AgentCardDiscoveryError,
  A2AAbortError,
  A2ATimeoutError,
  CardSignatureInvalidError,
  type CardVerificationResult,
} from './errors.js';
import { type A2AValidator, structuralValidator } from './guards.js';
import { type FetchLike, lowerCaseHeaders, readText, sendHttp, tryParseJson } from './http.js';
import { loadV03Translators, type V03Support } from './v0_3-loader.js';
import type { PublicJwk, VerificationKey } from '@a2aplane/a2a-identity/verify';

/**
 * Structurally `(json) => verifyAgentCard(json, resolver)` from a2a-identity. Replaces the
 * default verification; `url` is where the card was read from.
 */
export type CardVerifier = (cardJson: string, url: string) => Promise<CardVerificationResult>;

/** A pinned public key: an a2a-identity `VerificationKey` or a public JWK (Ed25519 or P-256). */
export type TrustedCardKey = VerificationKey | PublicJwk;

/** What to do with a card that carries no signature. */
export type UnsignedCardPolicy = 'allow' | 'warn' | 'reject';

export interface CardResolverOptions {
  fetch?: FetchLike;
  headers?: Record<string, string>;
  auth?: AuthProvider;
  /** Cache lifetime when the response has no `Cache-Control: max-age`. Default 300000 (5 min). */
  ttlMs?: number;
  timeoutMs?: number;
  /**
   * Keys a signed card must be signed by. Without them the key comes from the signature's `jku`,
   * which must be HTTPS on the card's own origin (or start with one of `jkuPrefixes`).
   */
  trustedKeys?: readonly TrustedCardKey[];
  /** More `jku` prefixes to trust besides the card's own origin (such as a key server). */
  jkuPrefixes?: readonly string[];
  /**
   * Development only: also accept a `jku` on `http://127.0.0.1`, `http://[::1]` or
   * `http://localhost`. Default false.
   */
  allowInsecureLoopback?: boolean;
  /** Refuse cards that carry no signature. Default false: they are accepted, reported as `no-signature`. */
  requireSignedCard?: boolean;
  /** Replaces the default verification (trusted keys or same-origin `jku`). */
  cardVerifier?: CardVerifier;
  /**
   * Default 'allow' ('reject' with `requireSignedCard`). Signed cards are always verified, and a
   * tampered, untrusted, unsupported, malformed or AgentID-mismatched one is always rejected.
   */
  unsignedCardPolicy?: UnsignedCardPolicy;
  /** Receives 'warn' policy messages. Default `console.warn`. */
  onWarning?: (message: string) => void;
  /** Try `/.well-known/agent.json` (v0.3) when the v1.0 path is 404. Default true. */
  legacyFallback?: boolean;
  /** Clock for the cache, in ms. */
  now?: () => number;
  /** How cards are checked. Default `structuralValidator`; `strictValidator` (`/strict`) parses them with zod. */
  validator?: A2AValidator;
  /**
   * v0.3 support (`v0_3` from `@a2aplane/a2a-client/v0_3`): legacy cards then go through the strict
   * a2a-types translator first. Without it they are normalized by `normalizeLegacyCard` (from `/v0_3`).
   */
  v0_3?: V03Support;
}

export interface DiscoveredCard {
  card: AgentCard;
  /** The URL the card was read from. */
  url: string;
  /** The response text the signature was checked over. */
  raw: string;
  /** Whether the card came from the legacy v0.3 path and was normalized. */
  legacy: boolean;
  /** `valid` (with the signer's `kid` and AgentID) or `no-signature`; anything else was rejected. */
  verification: CardVerificationResult;
}

/**
 * The resolver's work (`card-resolution.ts`: fetch, cache, legacy fallback, verification), loaded by
 * the first `resolve` (decision 0055): bundlers that split chunks keep it out of the initial download,
 * and a client given its card never loads it. A failed load is a retryable transport failure (nothing
 * was sent); the next `resolve` loads again.
 */
const loadCardResolution = chunkLoader(() => import('./card-resolution.js'), 'discovery code');

/** The initial code the resolver's chunk uses (it imports nothing itself). */
const CARD_RESOLUTION_KIT: CardResolutionKit = [
  sendHttp,
  readText,
  lowerCaseHeaders,
  tryParseJson,
  loadV03Translators,
  structuralValidator,
  AgentCardDiscoveryError,
  CardSignatureInvalidError,
  A2AAbortError,
  A2ATimeoutError,
];

/**
 * Fetches and caches agent cards (spec §8.2, §8.6.2): TTL from `Cache-Control`, `ETag`
 * revalidation, legacy path fallback, and verify-on-discover. The options are checked here; the
 * work loads with the first `resolve`.
 */
export class CardResolver {
  readonly #options: CardResolverOptions;
  /** This resolver's cache and work, made by the first `resolve`. */
  #resolution: CardResolution | undefined;

  constructor(options: CardResolverOptions = {}) {
    if (typeof options !== 'object' || options === null)
      throw new TypeError(`expected CardResolverOptions, got ${options === null ? 'null' : typeof options}`);
    if (options.trustedKeys !== undefined && !Array.isArray(options.trustedKeys)) {
      throw new TypeError(`expected trustedKeys to be an array of keys, got ${typeof options.trustedKeys}`);
    }
    if (
      options.jkuPrefixes !== undefined &&
      (!Array.isArray(options.jkuPrefixes) || !options.jkuPrefixes.every((p) => typeof p === 'string'))
    ) {
      throw new TypeError(`expected jkuPrefixes to be an array of strings, got ${typeof options.jkuPrefixes}`);
    }
    this.#options = options;
  }

  /** Drops cached cards (all, or the one of `baseUrl`). */
  clear(baseUrl?: string): void {
    this.#resolution?.clear(baseUrl);
  }

  async resolve(baseUrl: string, options: { signal?: AbortSignal; forceRefresh?: boolean } = {}): Promise<DiscoveredCard> {
    const chunk = await loadCardResolution();
    // Made after the await, once: concurrent first calls share one cache.
    this.#resolution ??= chunk.createCardResolution(this.#options, CARD_RESOLUTION_KIT);
    return this.#resolution.resolve(baseUrl, options);
  }
}

/** One-shot discovery (no shared cache): fetch, verify and validate the card of `baseUrl`. */
export async function discoverAgentCard(baseUrl: string, options: CardResolverOptions & { signal?: AbortSignal } = {}): Promise<AgentCard> {
  const { signal, ...resolverOptions } = options;
  // Our own resolver: an absent signal may be passed as undefined.
  const discovered = await new CardResolver(resolverOptions).resolve(baseUrl, { signal });
  return discovered.card;
}

/** Makes an agent card resolver (discovery with caching); see `CardResolver`. */
export function createCardResolver(options: CardResolverOptions = {}): CardResolver {
  return new CardResolver(options);
}
