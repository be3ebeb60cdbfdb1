import { isAgentId } from './agent-id.js';
import { describeValue } from '@a2aplane/a2a-types';

/** "Is this AgentID allowed?" (ADR-159 r2 IdentityResolver); an RBAC layer can implement it too. */
export interface IdentityResolver {
  isAllowed(agentId: string): Promise<boolean> | boolean;
}

/** Allows exactly the listed AgentIDs (ADR-159 trust substrate option (a), the M1 default for production). */
export function createAllowlistIdentityResolver(agentIds: Iterable<string>): IdentityResolver & { readonly size: number } {
  if (agentIds === null || typeof agentIds !== 'object' || typeof (agentIds as Iterable<string>)[Symbol.iterator] !== 'function') {
    throw new TypeError(`expected an iterable of AgentIDs, got ${agentIds === null ? 'null' : typeof agentIds}`);
  }
  const allowed = new Set<string>();
  for (const id of agentIds) {
    const normalized = typeof id === 'string' ? id.toLowerCase() : id;
    if (!isAgentId(normalized)) throw new TypeError(`expected an AgentID (64 hex characters), got ${JSON.stringify(id)}`);
    allowed.add(normalized);
  }
  return {
    size: allowed.size,
    isAllowed(agentId) {
      return typeof agentId === 'string' && allowed.has(agentId.toLowerCase());
    },
  };
}

/**
 * Allows everyone and records who it let in (ADR-159 default: allow-all and log), so a naive
 * deployment works on day one and an operator can turn the log into an allowlist.
 */
export function createAllowAllIdentityResolver(options?: {
  onAllow?: (agentId: string) => void;
  maxRecorded?: number;
}): IdentityResolver & {
  allowed(): readonly string[];
} {
  const maxRecorded = options?.maxRecorded ?? 10_000;
  if (!Number.isSafeInteger(maxRecorded) || maxRecorded < 0)
    throw new RangeError(`expected maxRecorded to be an integer >= 0, got ${describeValue(maxRecorded)}`);
  if (options?.onAllow !== undefined && typeof options.onAllow !== 'function') {
    throw new TypeError(`expected onAllow to be a function, got ${describeValue(options.onAllow)}`);
  }
  const seen = new Set<string>();
  return {
    isAllowed(agentId) {
      if (!seen.has(agentId)) {
        if (seen.size < maxRecorded) seen.add(agentId);
        options?.onAllow?.(agentId);
      }
      return true;
    },
    allowed() {
      return [...seen];
    },
  };
}
