import { type AuthProvider, createCardResolver, type DiscoveredCard, type FetchLike } from '@a2aplane/a2a-client';
import { v0_3 } from '@a2aplane/a2a-client/v0_3';
import {
  type CardVerificationResult,
  createJwksKeyResolver,
  createPinnedKeyResolver,
  type PublicJwk,
  readDeclaredAgentId,
  verifyAgentCard,
} from '@a2aplane/a2a-identity/verify';

/** The card's signature verdict as the console shows it. */
export type CardVerdict = CardVerificationResult & {
  /** Checked against keys the user pinned (else: the signature's `jku` on the card's origin). */
  pinned: boolean;
  /** The AgentID the card declares (ruvector extension), if any. */
  declaredAgentId?: string;
};

export interface Inspection {
  discovered: DiscoveredCard;
  verdict: CardVerdict;
  /** The card as served (a v0.3 card before translation). */
  raw: unknown;
  /** '0.3' for a legacy card (the client then speaks v0.3 JSON-RPC), else '1.0'. */
  protocolVersion: '1.0' | '0.3';
}

export interface InspectOptions {
  fetch: FetchLike;
  /** Public JWKs the card must be signed by. */
  pinnedKeys?: readonly PublicJwk[];
  /** Accept a `jku` on loopback http (agents in development). */
  allowInsecureLoopback: boolean;
  auth?: AuthProvider;
  signal?: AbortSignal;
}

function declaredAgentId(raw: string): string | undefined {
  try {
    return readDeclaredAgentId(JSON.parse(raw)) ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * Discovers the agent's card and keeps the real signature verdict, whatever it is: like `a2a card`,
 * an inspector shows a tampered or untrusted card with its verdict instead of refusing to show it.
 */
export async function inspectAgent(url: string, options: InspectOptions): Promise<Inspection> {
  let verdict: CardVerdict | undefined;
  const pinned = (options.pinnedKeys?.length ?? 0) > 0;
  const resolver = createCardResolver({
    fetch: options.fetch,
    timeoutMs: 15_000,
    v0_3,
    ...(options.auth ? { auth: options.auth } : {}),
    cardVerifier: async (text, cardUrl) => {
      const keys = pinned
        ? createPinnedKeyResolver([...(options.pinnedKeys ?? [])])
        : createJwksKeyResolver({
            fetch: options.fetch as typeof fetch,
            allowedJkuPrefixes: [`${new URL(cardUrl).origin}/`],
            allowInsecureLoopback: options.allowInsecureLoopback,
          });
      const result = await verifyAgentCard(text, keys);
      const declared = declaredAgentId(text);
      verdict = { ...result, pinned, ...(declared ? { declaredAgentId: declared } : {}) };
      return { status: result.status === 'no-signature' ? 'no-signature' : 'valid' };
    },
  });
  const discovered = await resolver.resolve(url, options.signal ? { signal: options.signal } : {});
  let raw: unknown;
  try {
    raw = JSON.parse(discovered.raw);
  } catch {
    raw = discovered.card;
  }
  return {
    discovered,
    verdict: verdict ?? { status: 'no-signature', pinned },
    raw,
    protocolVersion: discovered.legacy ? '0.3' : '1.0',
  };
}
