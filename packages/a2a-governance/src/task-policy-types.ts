import type { PolicyViolationError } from '@a2aplane/a2a-types';

// The task policy's data and seams, apart from the engine (task-policy.ts) so that its parts
// (the admission, the slot counters) need not import the engine.

/** Per-task bounds of ADR-159 r2, scoped to one caller identity. */
export interface TaskPolicy {
  /** Tokens the task may consume; checked on every `meterTokens`. */
  maxTokens?: number;
  /** Upper bound on the estimated cost, checked before dispatch, and on the actual cost metered while the task runs. */
  maxCostUsd?: number;
  /** Wall-clock lifetime; past it the task's signal aborts. */
  maxDurationMs?: number;
  /** Skill ids the caller may request; absent means any. */
  allowedSkills?: string[];
  /**
   * Tasks one caller may run at once on one skill. Default `DEFAULT_MAX_CONCURRENCY` (16, ADR-159
   * mitigation 1); `Infinity` lifts the cap.
   */
  maxConcurrency?: number;
}

/** A held concurrency slot, given back through `ConcurrencySlots.release`. Opaque to the engine. */
export type SlotLease = object;

/** A slot request's answer: the lease, or a refusal with the number of slots in use. */
export type SlotGrant = { ok: true; lease: SlotLease } | { ok: false; active: number };

/**
 * The seam where the concurrency slots of a (caller, skill) are counted. `acquire` grants a slot
 * when fewer than `max` are held; `release` gives a lease back (once; later calls are ignored) and
 * never throws: a shared backend expires a lease it could not hear released (a crashed replica's
 * slots come back by themselves).
 */
export interface ConcurrencySlots {
  acquire(caller: string, skill: string, max: number): SlotGrant | Promise<SlotGrant>;
  release(lease: SlotLease): void;
}

/** A reserved concurrency slot plus the mid-task limits of one admitted task. */
export interface PolicyAdmission {
  /** Aborts with a `PolicyViolationError` (metadata.field `maxTokens` | `maxCostUsd` | `maxDurationMs`) as reason. */
  readonly signal: AbortSignal;
  /** Adds tokens consumed so far; past `maxTokens` the signal aborts. */
  meterTokens(tokens: number): void;
  /** Adds USD spent so far; past `maxCostUsd` the signal aborts. */
  meterCost(usd: number): void;
  readonly elapsedMs: number;
  readonly tokensUsed: number;
  readonly costUsd: number;
  /** Frees the concurrency slot and clears the duration timer. Idempotent; call it on every exit path. */
  release(): void;
}

export interface PolicyAdmitInput {
  caller: string;
  skill: string;
  estimatedCostUsd?: number;
}

export type PolicyAdmitResult = { ok: true; admission: PolicyAdmission } | { ok: false; error: PolicyViolationError };
