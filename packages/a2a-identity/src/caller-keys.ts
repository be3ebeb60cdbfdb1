import { agentIdFromPublicKey, isAgentId } from './agent-id.js';
import { describeValue } from '@a2aplane/a2a-types';
import { createJwksKeyResolver, type KeyResolver } from './key-resolver.js';
import type { KeyPair, PublicJwk, VerificationKey } from './key-types.js';
import { weakEd25519PublicKeyReason } from './ed25519-public-key.js';
import { readPublicJwk } from './public-jwk.js';
import { verifyAgentCard } from './verify.js';

export interface CallerKeyResolverOptions {
  /** Pinned Ed25519 keys (keys, key pairs or public JWKs); each is found by the AgentID it hashes to. */
  keys?: ReadonlyArray<VerificationKey | KeyPair | PublicJwk>;
  /**
   * Where a caller's card lives, by AgentID (an operator directory: never a URL the caller
   * chooses). The card must be signed by the key its AgentID names, with a `jku` on its own origin.
   */
  cardUrlOf?: (agentId: string) => string | undefined;
  fetch?: typeof fetch;
  /** Development only: a card and `jku` on loopback http. Default false. */
  allowInsecureLoopback?: boolean;
  /** How long a key read from a card is reused. Default 300000 (5 minutes). */
  ttlMs?: number;
  clock?: () => number;
}

/**
 * The caller's public key for an AgentID, or `undefined` when it is not trusted: at once for a
 * pinned key (the verifier then spends no event-loop turn on it), a promise for one read from a card.
 */
export type CallerKeyResolver = (agentId: string) => VerificationKey | undefined | Promise<VerificationKey | undefined>;

/**
 * Resolves the key behind a caller's AgentID (for `createHttpSignatureVerifier`): a pinned key,
 * else the key that signed the caller's card at `cardUrlOf(agentId)`, verified with
 * `verifyAgentCard` (same-origin `jku`, AgentID bound to the signer). Failures are not cached.
 */
export function createCallerKeyResolver(options: CallerKeyResolverOptions): CallerKeyResolver {
  if (typeof options !== 'object' || options === null)
    throw new TypeError(`expected CallerKeyResolverOptions, got ${describeValue(options)}`);
  if (options.cardUrlOf !== undefined && typeof options.cardUrlOf !== 'function') {
    throw new TypeError(`expected cardUrlOf to be a function, got ${describeValue(options.cardUrlOf)}`);
  }
  const pinned = new Map<string, VerificationKey>();
  (options.keys ?? []).forEach((key, index) => {
    const read =
      typeof key === 'object' && key !== null && 'publicKey' in key && key.publicKey instanceof Uint8Array
        ? { ok: true as const, key: { algorithm: key.algorithm, kid: key.kid, publicKey: key.publicKey } }
        : readPublicJwk(key);
    if (!read.ok || read.key.algorithm !== 'EdDSA')
      throw new TypeError(`expected an Ed25519 key at keys[${index}], got ${read.ok ? read.key.algorithm : read.reason}`);
    const weak = weakEd25519PublicKeyReason(read.key.publicKey);
    if (weak !== undefined) throw new TypeError(`expected a usable Ed25519 key at keys[${index}], got one where ${weak}`);
    pinned.set(agentIdFromPublicKey(read.key.publicKey), read.key);
  });
  const ttlMs = options.ttlMs ?? 300_000;
  const clock = options.clock ?? Date.now;
  const fromCards = new Map<string, { expiresAt: number; key: Promise<VerificationKey | undefined> }>();
  const resolvers = new Map<string, KeyResolver>();

  async function fromCard(agentId: string, cardUrl: string): Promise<VerificationKey | undefined> {
    const doFetch = options.fetch ?? globalThis.fetch;
    const url = new URL(cardUrl);
    const loopback =
      options.allowInsecureLoopback === true && url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
    if (url.protocol !== 'https:' && !loopback) return undefined;
    const response = await doFetch(url.href, {
      headers: { accept: 'application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(5000),
    });
    if (!response.ok) return undefined;
    const text = await response.text();
    if (text.length > 1_048_576) return undefined;
    let resolver = resolvers.get(url.origin);
    if (!resolver) {
      resolver = createJwksKeyResolver({
        ...(options.fetch ? { fetch: options.fetch } : {}),
        allowedJkuPrefixes: [`${url.origin}/`],
        allowInsecureLoopback: options.allowInsecureLoopback === true,
      });
      resolvers.set(url.origin, resolver);
    }
    // Keep the keys the resolver hands out, to return the one that signed the card.
    const seen: VerificationKey[] = [];
    const recording: KeyResolver = {
      async resolve(header) {
        const keys = await (resolver as KeyResolver).resolve(header);
        seen.push(...keys);
        return keys;
      },
    };
    const result = await verifyAgentCard(text, recording);
    if (result.status !== 'valid' || result.agentId !== agentId) return undefined;
    return seen.find(
      (key) =>
        key.algorithm === 'EdDSA' &&
        weakEd25519PublicKeyReason(key.publicKey) === undefined &&
        agentIdFromPublicKey(key.publicKey) === agentId,
    );
  }

  const fromCardCached = async (agentId: string): Promise<VerificationKey | undefined> => {
    const cardUrl = options.cardUrlOf?.(agentId);
    if (cardUrl === undefined) return undefined;
    const now = clock();
    let entry = fromCards.get(agentId);
    if (!entry || entry.expiresAt <= now) {
      entry = { expiresAt: now + ttlMs, key: fromCard(agentId, cardUrl).catch(() => undefined) };
      fromCards.set(agentId, entry);
    }
    const found = await entry.key;
    if (!found && fromCards.get(agentId) === entry) fromCards.delete(agentId); // failures are not cached
    return found;
  };

  return (agentId) => {
    // A pinned key is found by its own AgentID: no need to check the form first (on every request).
    const key = pinned.get(agentId);
    if (key) return key;
    if (!isAgentId(agentId)) return undefined;
    return options.cardUrlOf === undefined ? undefined : fromCardCached(agentId);
  };
}
