import { RecursionLimitError } from '@a2aplane/a2a-types';
import type { TaskContext } from './context.js';

export interface RecursionPolicyOptions {
  /** Deepest child a chain may reach. Default 8: a child at depth 8 runs, depth 9 is rejected. */
  maxCallDepth?: number;
  /** Reject a target already in `visitedAgents`. Default true. */
  denyRevisit?: boolean;
  /** Agents exempt from `denyRevisit` (bounce-through agents such as a shared memory agent). */
  revisitAllowlist?: string[];
}

export type RecursionCheck = { allowed: true } | { allowed: false; error: RecursionLimitError; path: string[] };

export const DEFAULT_MAX_CALL_DEPTH = 8;

const ALLOWED: { allowed: true } = Object.freeze({ allowed: true as const });

/**
 * The recursion guard of ADR-159 r3. `check(context, target)` takes the context of the task that
 * is delegating (the sender's context, as carried on the wire) and the agent it delegates to. The
 * delegated task would run at `context.depth + 1`, so the check rejects `context.depth >=
 * maxCallDepth`: with `maxCallDepth` 8 a child at depth 8 is dispatched and one at depth 9 is
 * rejected. It also rejects a target already in `context.visitedAgents` unless allowlisted.
 */
export class RecursionPolicy {
  readonly maxCallDepth: number;
  readonly denyRevisit: boolean;
  readonly revisitAllowlist: ReadonlySet<string>;

  constructor(options: RecursionPolicyOptions = {}) {
    const depth = options.maxCallDepth ?? DEFAULT_MAX_CALL_DEPTH;
    if (!Number.isInteger(depth) || depth < 0) throw new RangeError(`expected maxCallDepth to be an integer >= 0, got ${depth}`);
    this.maxCallDepth = depth;
    this.denyRevisit = options.denyRevisit ?? true;
    this.revisitAllowlist = new Set(options.revisitAllowlist ?? []);
  }

  check(context: TaskContext, targetAgentId: string): RecursionCheck {
    if (context.depth >= this.maxCallDepth) {
      const path = [...context.visitedAgents, targetAgentId];
      return {
        allowed: false,
        path,
        error: new RecursionLimitError({
          message: `call depth ${context.depth + 1} exceeds maxCallDepth ${this.maxCallDepth}`,
          metadata: {
            limit: 'depth',
            depth: String(context.depth + 1),
            maxCallDepth: String(this.maxCallDepth),
            path: path.join(' -> '),
            traceId: context.traceId,
          },
        }),
      };
    }
    if (this.denyRevisit && !this.revisitAllowlist.has(targetAgentId) && context.visitedAgents.includes(targetAgentId)) {
      const path = [...context.visitedAgents, targetAgentId];
      return {
        allowed: false,
        path,
        error: new RecursionLimitError({
          message: `agent ${targetAgentId} is already in the call chain`,
          metadata: { limit: 'revisit', agentId: targetAgentId, path: path.join(' -> '), traceId: context.traceId },
        }),
      };
    }
    return ALLOWED;
  }
}

/** Makes the recursion guard over a `TaskContext` (depth and revisits); see `RecursionPolicy`. */
export function createRecursionPolicy(options: RecursionPolicyOptions = {}): RecursionPolicy {
  return new RecursionPolicy(options);
}
