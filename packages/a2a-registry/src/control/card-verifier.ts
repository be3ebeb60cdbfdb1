import {
  type CardVerificationResult,
  createJwksKeyResolver,
  createPinnedKeyResolver,
  type KeyResolver,
  readDeclaredAgentId,
  verifyAgentCard,
} from '@a2aplane/a2a-identity';
import type { AgentView, RegistryReader } from '../core/types.js';

export interface RegistryCardVerifierOptions {
  /** How long a registry answer is reused (bounds how long a revoked key still verifies). Default 2000 ms. */
  ttlMs?: number;
  /** For agents the registry does not know: accept a loopback http `jku` (development). Default false. */
  allowInsecureLoopback?: boolean;
  fetch?: typeof fetch;
  clock?: () => number;
}

/** What the client's `cardVerifier` option takes (structurally a2a-client's `CardVerifier`). */
export type RegistryCardVerifier = (cardJson: string, url: string) => Promise<CardVerificationResult & { registry?: string }>;

/**
 * A card verifier for `createA2AClient({ cardVerifier })` (decision 0073). For an agent the
 * registry has enrolled (by the card's origin, or by the AgentID the card declares) only the
 * enrolled, active key is trusted: an unsigned card, a card signed by another key, or the card of
 * a revoked or disabled agent is refused — whatever the client's unsigned-card policy. Other
 * agents are verified as the client does by default (`jku` on the card's own origin), and an
 * unsigned card is left to the client's policy. A registry that cannot be read refuses the card.
 */
export function createRegistryCardVerifier(reader: RegistryReader, options: RegistryCardVerifierOptions = {}): RegistryCardVerifier {
  const ttlMs = options.ttlMs ?? 2000;
  const clock = options.clock ?? Date.now;
  const answers = new Map<string, { expiresAt: number; agent: Promise<AgentView | undefined> }>();
  const originResolvers = new Map<string, KeyResolver>();

  const cached = (key: string, read: () => Promise<AgentView | undefined>): Promise<AgentView | undefined> => {
    const entry = answers.get(key);
    if (entry && entry.expiresAt > clock()) return entry.agent;
    const agent = read();
    if (answers.size >= 10_000) answers.delete(answers.keys().next().value as string);
    answers.set(key, { expiresAt: clock() + ttlMs, agent });
    agent.catch(() => answers.delete(key));
    return agent;
  };

  const originResolver = (origin: string): KeyResolver => {
    let resolver = originResolvers.get(origin);
    if (!resolver) {
      resolver = createJwksKeyResolver({
        ...(options.fetch ? { fetch: options.fetch } : {}),
        allowedJkuPrefixes: [`${origin}/`],
        allowInsecureLoopback: options.allowInsecureLoopback === true,
      });
      if (originResolvers.size >= 1000) originResolvers.clear();
      originResolvers.set(origin, resolver);
    }
    return resolver;
  };

  return async (cardJson, url) => {
    let origin: string;
    let declared: string | undefined;
    try {
      origin = new URL(url).origin;
      declared = readDeclaredAgentId(JSON.parse(cardJson));
    } catch {
      return { status: 'malformed', detail: 'card is not JSON or its URL is not absolute' };
    }
    let enrolled: AgentView | undefined;
    try {
      enrolled =
        (await cached(`origin ${origin}`, () => reader.findByOrigin(origin))) ??
        (declared ? await cached(`id ${declared}`, () => reader.lookupAgent(declared)) : undefined);
    } catch {
      return { status: 'untrusted-key', kids: [], registry: 'the registry could not be read' };
    }
    if (!enrolled) {
      const signatures = (JSON.parse(cardJson) as { signatures?: unknown }).signatures;
      if (!Array.isArray(signatures) || signatures.length === 0) return { status: 'no-signature' };
      return verifyAgentCard(cardJson, originResolver(origin));
    }
    if (enrolled.status !== 'active')
      return { status: 'untrusted-key', kids: [], registry: `agent ${enrolled.agentId} is ${enrolled.status}` };
    const verdict = await verifyAgentCard(cardJson, createPinnedKeyResolver(enrolled.keys));
    if (verdict.status === 'no-signature')
      return { status: 'untrusted-key', kids: [], registry: `unsigned card for enrolled agent ${enrolled.agentId}` };
    if (verdict.status === 'valid' && verdict.agentId !== enrolled.agentId) {
      return {
        status: 'untrusted-key',
        kids: [verdict.kid],
        registry: `card is not signed by the current key of agent ${enrolled.agentId}`,
      };
    }
    return verdict;
  };
}
