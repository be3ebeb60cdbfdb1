import type { KeyResolver, VerificationCache } from '@a2aplane/a2a-identity/verify';
import type { CardResolverOptions, CardVerifier } from './discovery.js';
import type { CardVerificationResult } from './errors.js';

/**
 * The default card verification, part of the discovery chunk (decision 0055); a2a-identity's
 * verifier loads with the first signed card, so unsigned peers never load it. Pinned keys when
 * given, else the signature's `jku` on the card's own origin (spec §8.4.3). One key resolver per
 * card origin (its JWKS cache lives there), or the pinned one; one verification cache. A verifier
 * that cannot load rejects, and the resolver tries again with the next card.
 */
export async function createDefaultCardVerifier(options: CardResolverOptions, ttlMs: number): Promise<CardVerifier> {
  const { createJwksKeyResolver, createPinnedKeyResolver, createVerificationCache, verifyAgentCard } = await import(
    '@a2aplane/a2a-identity/verify'
  );
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
