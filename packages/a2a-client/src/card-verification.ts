import {
  createJwksKeyResolver,
  createPinnedKeyResolver,
  createVerificationCache,
  type KeyResolver,
  type VerificationCache,
  verifyAgentCard,
} from '@a2aplane/a2a-identity/verify';
import type { CardResolverOptions, CardVerifier } from './card-resolver-options.js';
import type { CardVerificationResult } from './errors.js';

/**
 * The default card verification, part of the discovery code (decision 0090): pinned keys when
 * given, else the signature's `jku` on the card's own origin (spec §8.4.3). One key resolver per
 * card origin (its JWKS cache lives there), or the pinned one; one verification cache.
 */
export function createDefaultCardVerifier(options: CardResolverOptions, ttlMs: number): CardVerifier {
  const { trustedKeys, jkuPrefixes, allowInsecureLoopback, fetch, timeoutMs } = options;
  const resolvers = new Map<string, KeyResolver>();
  let cache: VerificationCache | undefined;
  return async (text, url) => {
    const origin = new URL(url).origin;
    const resolverKey = trustedKeys ? '' : origin;
    let resolver = resolvers.get(resolverKey);
    if (!resolver) {
      resolver = trustedKeys
        ? createPinnedKeyResolver([...trustedKeys])
        : createJwksKeyResolver({
            ...(fetch ? { fetch: fetch as typeof globalThis.fetch } : {}),
            allowedJkuPrefixes: [`${origin}/`, ...(jkuPrefixes ?? [])],
            allowInsecureLoopback: allowInsecureLoopback === true,
            ...(timeoutMs !== undefined ? { timeoutMs } : {}),
          });
      resolvers.set(resolverKey, resolver);
    }
    cache ??= createVerificationCache({ ttlMs });
    const result: CardVerificationResult = await verifyAgentCard(text, resolver, { cache });
    return result;
  };
}
