import type { AgentCard } from '@a2aplane/a2a-types';
import type { CardResolution } from './card-resolution.js';
import type { CardResolverOptions, DiscoveredCard } from './card-resolver-options.js';
import type { CardVerificationResult } from './errors.js';
import { lazyLoad } from './lazy-load.js';

export type {
  CardResolverOptions,
  CardVerifier,
  DiscoveredCard,
  TrustedCardKey,
  UnsignedCardPolicy,
} from './card-resolver-options.js';

/**
 * Discovery and card verification (`card-resolution.ts`: fetch, cache, legacy fallback, the default
 * verifier with a2a-identity's), loaded by the first `resolve`: one of the client's lazy boundaries
 * (decision 0090), so that bundlers that split chunks keep it out of the initial download, and a
 * client given its card never loads it. A failed load is a retryable transport failure (nothing was
 * sent); the next `resolve` loads again.
 */
const loadDiscovery = lazyLoad(() => import('./card-resolution.js'), 'discovery code');

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

  /**
   * Verifies a card that did not come through discovery, such as the result of GetExtendedAgentCard,
   * exactly as a discovered one read from `url` (same trust inputs and unsigned-card policy): resolves
   * `valid` or `no-signature`, rejects with `CardSignatureInvalidError`.
   */
  async verify(card: unknown, url: string): Promise<CardVerificationResult> {
    return (await this.#work()).verifyCard(card, url);
  }

  async #work(): Promise<CardResolution> {
    const discovery = await loadDiscovery();
    // Made after the await, once: concurrent first calls share one cache.
    this.#resolution ??= discovery.createCardResolution(this.#options);
    return this.#resolution;
  }

  async resolve(baseUrl: string, options: { signal?: AbortSignal; forceRefresh?: boolean } = {}): Promise<DiscoveredCard> {
    return (await this.#work()).resolve(baseUrl, options);
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
