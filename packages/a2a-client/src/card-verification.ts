import {
  createJwksKeyResolver,
  createPinnedKeyResolver,
  createVerificationCache,
  type KeyResolver,
  type VerificationCache,
  verifyAgentCard,
} from '@a2aplane/a2a-identity/verify';
import type { CardResolverOptions, CardVerifier } from './discovery.js';
import type { CardVerificationResult } from './errors.js';

/**
 * The default card verification, a chunk of its own that loads with a2a-identity's verifier when
 * the first signed card arrives (it imports nothing the rest of the client imports, so bundlers
 * keep it and its glue out of the initial download). Pinned keys when given, else the signature's
 * `jku` on the card's own origin (spec §8.4.3). One key resolver per card origin (its JWKS cache
 * lives there), or the pinned one; one verification cache.
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
    return (await verifyAgentCard(text, resolver, { cache })) as unknown as CardVerificationResult;
  };
}
