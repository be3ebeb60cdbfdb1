import { LEGACY_WELL_KNOWN_AGENT_CARD_PATH, MEDIA_TYPE_JSON, WELL_KNOWN_AGENT_CARD_PATH } from '@a2aplane/a2a-types/client-core';
import type { AgentCard } from '@a2aplane/a2a-types';
import type { AuthProvider } from './auth.js';
import {
  AgentCardDiscoveryError,
  A2AAbortError,
  A2ATimeoutError,
  CardSignatureInvalidError,
  type CardVerificationResult,
} from './errors.js';
import { type A2AValidator, structuralValidator } from './guards.js';
import { type FetchLike, type HttpCall, lowerCaseHeaders, readText, sendHttp, tryParseJson } from './http.js';
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

interface CacheEntry {
  discovered: DiscoveredCard;
  etag: string | undefined;
  expiresAt: number;
}

const DEFAULT_TTL_MS = 300_000;

function maxAgeMs(cacheControl: string | null): number | undefined {
  if (!cacheControl) return undefined;
  if (/\bno-store\b|\bno-cache\b/i.test(cacheControl)) return 0;
  const match = /\bmax-age=(\d+)/i.exec(cacheControl);
  return match ? Number(match[1]) * 1000 : undefined;
}

function cardUrl(baseUrl: string, path: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch (error) {
    throw new TypeError(`expected baseUrl to be an absolute URL, got ${JSON.stringify(baseUrl)}`, { cause: error });
  }
  return new URL(path, url.origin + url.pathname.replace(/\/+$/, '/')).toString();
}

/**
 * Fetches and caches agent cards (spec §8.2, §8.6.2): TTL from `Cache-Control`, `ETag`
 * revalidation, legacy path fallback, and verify-on-discover.
 */
export class CardResolver {
  readonly #options: CardResolverOptions;
  readonly #cache = new Map<string, CacheEntry>();
  /** The default verification (`card-verification.ts`), made when the first signed card arrives. */
  #defaultVerifier: Promise<CardVerifier> | undefined;

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
    if (baseUrl === undefined) this.#cache.clear();
    else this.#cache.delete(baseUrl);
  }

  async resolve(baseUrl: string, options: { signal?: AbortSignal; forceRefresh?: boolean } = {}): Promise<DiscoveredCard> {
    const now = this.#options.now ?? Date.now;
    const cached = this.#cache.get(baseUrl);
    if (cached && !options.forceRefresh && cached.expiresAt > now()) return cached.discovered;

    const primary = cardUrl(baseUrl, WELL_KNOWN_AGENT_CARD_PATH.slice(1));
    const primaryEtag = cached && !cached.discovered.legacy ? cached.etag : undefined;
    let result = await this.#fetch(primary, primaryEtag, options.signal);
    let legacy = false;
    if (result.kind === 'not-found' && this.#options.legacyFallback !== false) {
      const legacyUrl = cardUrl(baseUrl, LEGACY_WELL_KNOWN_AGENT_CARD_PATH.slice(1));
      result = await this.#fetch(legacyUrl, cached?.discovered.legacy ? cached.etag : undefined, options.signal);
      legacy = true;
    }
    if (result.kind === 'not-found') {
      throw new AgentCardDiscoveryError('not-found', primary, `No agent card at ${primary}`, { status: 404 });
    }
    if (result.kind === 'not-modified') {
      if (!cached) throw new AgentCardDiscoveryError('http', result.url, `Unexpected 304 from ${result.url}`, { status: 304 });
      cached.expiresAt = now() + (result.maxAge ?? this.#options.ttlMs ?? DEFAULT_TTL_MS);
      return cached.discovered;
    }
    const discovered = await this.#accept(result.url, result.text, legacy);
    this.#cache.set(baseUrl, {
      discovered,
      etag: result.etag,
      expiresAt: now() + (result.maxAge ?? this.#options.ttlMs ?? DEFAULT_TTL_MS),
    });
    return discovered;
  }

  async #fetch(
    url: string,
    etag: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<
    | { kind: 'not-found'; url: string }
    | { kind: 'not-modified'; url: string; maxAge: number | undefined }
    | { kind: 'ok'; url: string; text: string; etag: string | undefined; maxAge: number | undefined }
  > {
    const headers = lowerCaseHeaders(this.#options.headers);
    headers.accept = MEDIA_TYPE_JSON;
    if (etag) headers['if-none-match'] = etag;
    const call: HttpCall = {
      method: 'GET',
      url,
      headers,
      ...(signal ? { signal } : {}),
      ...(this.#options.timeoutMs !== undefined ? { timeoutMs: this.#options.timeoutMs } : {}),
    };
    let text: string;
    let response: Response;
    try {
      const http = await sendHttp({ fetch: this.#options.fetch, auth: this.#options.auth, interceptors: undefined }, call);
      response = http.response;
      text = await readText(http, call);
    } catch (error) {
      if (A2AAbortError.isInstance(error) || A2ATimeoutError.isInstance(error)) throw error;
      throw new AgentCardDiscoveryError('network', url, `Could not fetch the agent card at ${url}`, { cause: error });
    }
    const maxAge = maxAgeMs(response.headers.get('Cache-Control'));
    if (response.status === 404) return { kind: 'not-found', url };
    if (response.status === 304) return { kind: 'not-modified', url, maxAge };
    if (!response.ok) {
      throw new AgentCardDiscoveryError('http', url, `HTTP ${response.status} fetching the agent card at ${url}`, {
        status: response.status,
      });
    }
    return { kind: 'ok', url, text, etag: response.headers.get('ETag') ?? undefined, maxAge };
  }

  async #accept(url: string, text: string, legacy: boolean): Promise<DiscoveredCard> {
    const json = tryParseJson(text);
    if (!json.ok) throw new AgentCardDiscoveryError('malformed', url, `Agent card at ${url} is not valid JSON`);
    const verification = await this.#verify(url, text, json.value);
    const validator = this.#options.validator ?? structuralValidator;
    const support = this.#options.v0_3;
    let card = json.value;
    // The strict translator first when `v0_3` is given; the lenient normalizer also covers v0.3 cards
    // the translator refuses. Both load on first use: only legacy agents need them.
    if (legacy) card = await (await import('./legacy-card.js')).readLegacyCard(json.value, support && loadV03Translators(support));
    try {
      await validator.prepare?.(card);
    } catch (error) {
      throw new AgentCardDiscoveryError('network', url, `Could not load the code to read the agent card at ${url}`, { cause: error });
    }
    const checked = validator.card(card);
    if (!checked.ok) {
      throw new AgentCardDiscoveryError('malformed', url, `Agent card at ${url} is malformed: ${checked.message}`, {
        violations: checked.violations,
      });
    }
    return { card: checked.value, url, raw: text, legacy, verification };
  }

  async #verify(url: string, text: string, value: unknown): Promise<CardVerificationResult> {
    const policy = this.#options.requireSignedCard ? 'reject' : (this.#options.unsignedCardPolicy ?? 'allow');
    const verifier = this.#options.cardVerifier;
    const signatures = typeof value === 'object' && value !== null ? (value as Record<string, unknown>).signatures : undefined;
    if (!verifier && (signatures === undefined || signatures === null || (Array.isArray(signatures) && signatures.length === 0))) {
      // Unsigned: nothing to verify, and the verifier is not even loaded.
      const unsigned: CardVerificationResult = { status: 'no-signature' };
      this.#applyUnsignedPolicy(url, policy, unsigned);
      return unsigned;
    }
    let result: CardVerificationResult;
    try {
      result = verifier ? await verifier(text, url) : await this.#defaultVerify(url, text);
    } catch (error) {
      result = { status: 'malformed', error };
    }
    if (result.status === 'valid') return result;
    if (result.status === 'no-signature') {
      this.#applyUnsignedPolicy(url, policy, result);
      return result;
    }
    // Fail closed: tampered, untrusted key, unsupported algorithm, malformed, AgentID mismatch.
    throw new CardSignatureInvalidError(url, result);
  }

  /**
   * The default verification and a2a-identity's verifier, loaded when the first signed card arrives:
   * bundlers that split chunks keep both out of the initial download, and unsigned peers never load
   * them. A failed load is tried again by the next card.
   */
  async #defaultVerify(url: string, text: string): Promise<CardVerificationResult> {
    this.#defaultVerifier ??= import('./card-verification.js').then(
      (module) => module.createDefaultCardVerifier(this.#options, this.#options.ttlMs ?? DEFAULT_TTL_MS),
      (error: unknown) => {
        this.#defaultVerifier = undefined;
        throw error;
      },
    );
    return (await this.#defaultVerifier)(text, url);
  }

  #applyUnsignedPolicy(url: string, policy: UnsignedCardPolicy, result: CardVerificationResult): void {
    if (policy === 'reject') throw new CardSignatureInvalidError(url, result);
    if (policy === 'warn') {
      const warn = this.#options.onWarning ?? ((message: string) => console.warn(message));
      warn(`Agent card at ${url} is not signed`);
    }
  }
}

/** One-shot discovery (no shared cache): fetch, verify and validate the card of `baseUrl`. */
export async function discoverAgentCard(baseUrl: string, options: CardResolverOptions & { signal?: AbortSignal } = {}): Promise<AgentCard> {
  const { signal, ...resolverOptions } = options;
  const discovered = await new CardResolver(resolverOptions).resolve(baseUrl, signal ? { signal } : {});
  return discovered.card;
}
