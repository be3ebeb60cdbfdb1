import { type IdentityResolver, readPublicJwk, type VerificationKey } from '@a2aplane/a2a-identity';
import type { AgentView, RegistryReader } from '../core/types.js';

export interface RegistryKeyResolverOptions {
  /**
   * How long an answer (a key, or "not trusted") is reused. This bounds how long a revoked agent
   * is still accepted. Default 2000 ms.
   */
  ttlMs?: number;
  clock?: () => number;
  /** Told when the registry cannot be read (the caller is then refused: fail closed). */
  onError?: (error: unknown) => void;
}

/** What the control plane reads about one AgentID, cached. */
export interface RegistryTrust {
  /** For `createHttpSignatureVerifier({ resolveKey })`: the caller's current Ed25519 key, if active. Synchronous while cached. */
  resolveKey(agentId: string): VerificationKey | undefined | Promise<VerificationKey | undefined>;
  /** The trust allowlist: an active enrolled agent (`createCallAuthorizer({ identity })`). */
  readonly identity: IdentityResolver;
  /** The agent's tier, when it is active. */
  tierOf(agentId: string): Promise<string | undefined>;
  /** Forgets every cached answer. */
  clear(): void;
}

interface Entry {
  expiresAt: number;
  agent: AgentView | undefined;
  /** The agent's key, read once per fetch (the verifier sees one object per caller). */
  key: VerificationKey | undefined;
}

/** The agent is trusted under this AgentID: enrolled, active, and the id is its current key's. */
const activeUnder = (agent: AgentView | undefined, agentId: string): AgentView | undefined =>
  agent !== undefined && agent.status === 'active' && agent.agentId === agentId ? agent : undefined;

function keyOf(agent: AgentView | undefined): VerificationKey | undefined {
  const jwk = agent?.keys[0];
  if (!jwk) return undefined;
  const read = readPublicJwk(jwk);
  return read.ok && read.key.algorithm === 'EdDSA' ? read.key : undefined;
}

/**
 * Keys, allowlist and tiers from the registry (decision 0073): a revoked or disabled agent is
 * refused everywhere within `ttlMs`. Concurrent look-ups of one AgentID share one read; a failed
 * read is not cached and refuses the caller.
 */
export function createRegistryTrust(reader: RegistryReader, options: RegistryKeyResolverOptions = {}): RegistryTrust {
  const ttlMs = options.ttlMs ?? 2000;
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs < 0) throw new RangeError(`expected ttlMs >= 0, got ${String(ttlMs)}`);
  const clock = options.clock ?? Date.now;
  const cache = new Map<string, Entry>();
  const pending = new Map<string, Promise<Entry | undefined>>();

  const fresh = (agentId: string): Entry | undefined => {
    const entry = cache.get(agentId);
    return entry && entry.expiresAt > clock() ? entry : undefined;
  };

  function load(agentId: string): Promise<Entry | undefined> {
    const cached = fresh(agentId);
    if (cached) return Promise.resolve(cached);
    let read = pending.get(agentId);
    if (!read) {
      read = reader
        .lookupAgent(agentId)
        .then((agent) => {
          if (cache.size >= 10_000) cache.delete(cache.keys().next().value as string);
          const entry: Entry = { expiresAt: clock() + ttlMs, agent, key: keyOf(activeUnder(agent, agentId)) };
          cache.set(agentId, entry);
          return entry;
        })
        .catch((error: unknown) => {
          // Fail closed, and forget what was known: a stale key must not outlive its TTL.
          cache.delete(agentId);
          options.onError?.(error);
          return undefined;
        })
        .finally(() => pending.delete(agentId));
      pending.set(agentId, read);
    }
    return read;
  }

  return {
    resolveKey(agentId) {
      if (typeof agentId !== 'string' || !/^[0-9a-f]{64}$/.test(agentId)) return undefined;
      const cached = fresh(agentId);
      if (cached) return cached.key;
      return load(agentId).then((entry) => entry?.key);
    },
    identity: {
      async isAllowed(agentId) {
        if (typeof agentId !== 'string') return false;
        const id = agentId.toLowerCase();
        return activeUnder((await load(id))?.agent, id) !== undefined;
      },
    },
    async tierOf(agentId) {
      return activeUnder((await load(agentId))?.agent, agentId)?.tier;
    },
    clear() {
      cache.clear();
    },
  };
}
