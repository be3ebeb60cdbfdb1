import { WELL_KNOWN_AGENT_CARD_PATH, LEGACY_WELL_KNOWN_AGENT_CARD_PATH, MEDIA_TYPE_JSON } from '@a2aplane/a2a-types';
import { createDefaultCardVerifier } from './card-verification.js';
import type { CardResolverOptions, CardVerifier, DiscoveredCard, UnsignedCardPolicy } from './card-resolver-options.js';
import {
  A2AAbortError,
  A2ATimeoutError,
  AgentCardDiscoveryError,
  CardSignatureInvalidError,
  type CardVerificationResult,
} from './errors.js';
import { structuralValidator } from './guards.js';
import { type HttpCall, lowerCaseHeaders, readText, sendHttp, tryParseJson } from './http.js';
import { readLegacyCard } from './legacy-card.js';
import { loadV03Translators } from './v0_3-loader.js';

/** One resolver's cache and work: fetch, revalidate, fall back to the legacy path, verify, validate. */
export interface CardResolution {
  resolve(baseUrl: string, options: { signal?: AbortSignal; forceRefresh?: boolean }): Promise<DiscoveredCard>;
  clear(baseUrl?: string): void;
  /** Verifies a card that did not come through discovery (an extended card) as if read from `url`. */
  verifyCard(value: unknown, url: string): Promise<CardVerificationResult>;
}

interface CacheEntry {
  discovered: DiscoveredCard;
  etag: string | undefined;
  expiresAt: number;
}

/** A card response (a 404 is `undefined`): no `text` for a 304, when the cached card stands. */
interface FetchedCard {
  url: string;
  maxAge: number | undefined;
  text?: string;
  etag?: string | undefined;
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
 * The work of a `CardResolver` (spec §8.2, §8.6.2), loaded by its first `resolve` (decision 0090):
 * TTL from `Cache-Control`, `ETag` revalidation, legacy path fallback, and verify-on-discover with
 * the default verification (a2a-identity's verifier) and the legacy normalizer.
 */
export function createCardResolution(options: CardResolverOptions): CardResolution {
  const cache = new Map<string, CacheEntry>();
  // Read when used, as the options object is the caller's.
  const ttlMs = (): number => options.ttlMs ?? DEFAULT_TTL_MS;
  /** The default verification (`card-verification.ts`), made when the first signed card arrives. */
  let defaultVerifier: CardVerifier | undefined;

  const fetchCard = async (url: string, etag: string | undefined, signal: AbortSignal | undefined): Promise<FetchedCard | undefined> => {
    const headers = lowerCaseHeaders(options.headers);
    headers.accept = MEDIA_TYPE_JSON;
    if (etag) headers['if-none-match'] = etag;
    const call: HttpCall = {
      method: 'GET',
      url,
      headers,
      ...(signal ? { signal } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    };
    let text: string;
    let response: Response;
    try {
      const http = await sendHttp({ fetch: options.fetch, auth: options.auth, interceptors: undefined }, call);
      response = http.response;
      text = await readText(http, call);
    } catch (error) {
      if (A2AAbortError.isInstance(error) || A2ATimeoutError.isInstance(error)) throw error;
      throw new AgentCardDiscoveryError('network', url, `Could not fetch the agent card at ${url}`, { cause: error });
    }
    const maxAge = maxAgeMs(response.headers.get('Cache-Control'));
    if (response.status === 404) return undefined;
    if (response.status === 304) return { url, maxAge };
    if (!response.ok) {
      throw new AgentCardDiscoveryError('http', url, `HTTP ${response.status} fetching the agent card at ${url}`, {
        status: response.status,
      });
    }
    return { url, maxAge, text, etag: response.headers.get('ETag') ?? undefined };
  };

  const applyUnsignedPolicy = (url: string, policy: UnsignedCardPolicy, result: CardVerificationResult): void => {
    if (policy === 'reject') throw new CardSignatureInvalidError(url, result);
    if (policy === 'warn') {
      const warn = options.onWarning ?? ((message: string) => console.warn(message));
      warn(`Agent card at ${url} is not signed`);
    }
  };

  const defaultVerify = (url: string, text: string): Promise<CardVerificationResult> => {
    defaultVerifier ??= createDefaultCardVerifier(options, ttlMs());
    return defaultVerifier(text, url);
  };

  const verify = async (url: string, text: string, value: unknown): Promise<CardVerificationResult> => {
    const policy = options.requireSignedCard ? 'reject' : (options.unsignedCardPolicy ?? 'allow');
    const verifier = options.cardVerifier;
    const signatures = typeof value === 'object' && value !== null ? (value as Record<string, unknown>).signatures : undefined;
    if (!verifier && (signatures === undefined || signatures === null || (Array.isArray(signatures) && signatures.length === 0))) {
      // Unsigned: nothing to verify.
      const unsigned: CardVerificationResult = { status: 'no-signature' };
      applyUnsignedPolicy(url, policy, unsigned);
      return unsigned;
    }
    let result: CardVerificationResult;
    try {
      result = verifier ? await verifier(text, url) : await defaultVerify(url, text);
    } catch (error) {
      result = { status: 'malformed', error };
    }
    if (result.status === 'valid') return result;
    if (result.status === 'no-signature') {
      applyUnsignedPolicy(url, policy, result);
      return result;
    }
    // Fail closed: tampered, untrusted key, unsupported algorithm, malformed, AgentID mismatch.
    throw new CardSignatureInvalidError(url, result);
  };

  const accept = async (url: string, text: string, legacy: boolean): Promise<DiscoveredCard> => {
    const json = tryParseJson(text);
    if (!json.ok) throw new AgentCardDiscoveryError('malformed', url, `Agent card at ${url} is not valid JSON`);
    const verification = await verify(url, text, json.value);
    const validator = options.validator ?? structuralValidator;
    const support = options.v0_3;
    let card = json.value;
    // The strict translator first when `v0_3` is given; the lenient normalizer also covers v0.3 cards
    // the translator refuses. Both load on first use: only legacy agents need them.
    if (legacy) card = await readLegacyCard(json.value, support && loadV03Translators(support));
    const checked = validator.card(card);
    if (!checked.ok) {
      throw new AgentCardDiscoveryError('malformed', url, `Agent card at ${url} is malformed: ${checked.message}`, {
        violations: checked.violations,
      });
    }
    return { card: checked.value, url, raw: text, legacy, verification };
  };

  return {
    // The object the caller uses is the one verified: its JSON text is what the verifier reads.
    verifyCard: (value, url) => verify(url, JSON.stringify(value), value),

    clear(baseUrl) {
      if (baseUrl === undefined) cache.clear();
      else cache.delete(baseUrl);
    },

    async resolve(baseUrl, resolveOptions) {
      const now = options.now ?? Date.now;
      const cached = cache.get(baseUrl);
      if (cached && !resolveOptions.forceRefresh && cached.expiresAt > now()) return cached.discovered;

      const primary = cardUrl(baseUrl, WELL_KNOWN_AGENT_CARD_PATH.slice(1));
      const primaryEtag = cached && !cached.discovered.legacy ? cached.etag : undefined;
      let result = await fetchCard(primary, primaryEtag, resolveOptions.signal);
      let legacy = false;
      if (!result && options.legacyFallback !== false) {
        const legacyUrl = cardUrl(baseUrl, LEGACY_WELL_KNOWN_AGENT_CARD_PATH.slice(1));
        result = await fetchCard(legacyUrl, cached?.discovered.legacy ? cached.etag : undefined, resolveOptions.signal);
        legacy = true;
      }
      if (!result) {
        throw new AgentCardDiscoveryError('not-found', primary, `No agent card at ${primary}`, { status: 404 });
      }
      if (result.text === undefined) {
        if (!cached) throw new AgentCardDiscoveryError('http', result.url, `Unexpected 304 from ${result.url}`, { status: 304 });
        cached.expiresAt = now() + (result.maxAge ?? ttlMs());
        return cached.discovered;
      }
      const discovered = await accept(result.url, result.text, legacy);
      cache.set(baseUrl, { discovered, etag: result.etag, expiresAt: now() + (result.maxAge ?? ttlMs()) });
      return discovered;
    },
  };
}
