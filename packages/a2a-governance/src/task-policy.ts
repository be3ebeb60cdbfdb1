import { neverAbortedSignal } from './abort.js';
import { PolicyViolationError } from '@a2aplane/a2a-types';
import type { TimerFunctions } from './budget.js';

/** Per-task bounds of ADR-159 r2, scoped to one caller identity. */
export interface TaskPolicy {
  /** Tokens the task may consume; checked on every `meterTokens`. */
  maxTokens?: number;
  /** Upper bound on the estimated cost, checked before dispatch. */
  maxCostUsd?: number;
  /** Wall-clock lifetime; past it the task's signal aborts. */
  maxDurationMs?: number;
  /** Skill ids the caller may request; absent means any. */
  allowedSkills?: string[];
  /** Tasks one caller may run at once on one skill. */
  maxConcurrency?: number;
}

export interface TaskPolicyEngineOptions {
  default?: TaskPolicy;
  /** Per-caller overrides, merged key by key over `default`. */
  perCaller?: Record<string, TaskPolicy>;
  /** Estimates a task's cost when `admit` is not given one. */
  estimateCost?: (input: { caller: string; skill: string }) => number;
  clock?: () => number;
  timers?: TimerFunctions;
}

/** A reserved concurrency slot plus the mid-task limits of one admitted task. */
export interface PolicyAdmission {
  /** Aborts with a `PolicyViolationError` (metadata.field `maxTokens` | `maxDurationMs`) as reason. */
  readonly signal: AbortSignal;
  /** Adds tokens consumed so far; past `maxTokens` the signal aborts. */
  meterTokens(tokens: number): void;
  readonly elapsedMs: number;
  readonly tokensUsed: number;
  /** Frees the concurrency slot and clears the duration timer. Idempotent; call it on every exit path. */
  release(): void;
}

export type PolicyAdmitResult = { ok: true; admission: PolicyAdmission } | { ok: false; error: PolicyViolationError };

export type PolicyField = 'allowedSkills' | 'maxConcurrency' | 'maxCostUsd' | 'maxTokens' | 'maxDurationMs';

function violation(field: PolicyField, message: string, metadata: Record<string, string>): PolicyViolationError {
  return new PolicyViolationError({ message, metadata: { field, ...metadata } });
}

function checkNonNegative(name: string, value: number | undefined): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
    throw new RangeError(`expected ${name} to be a number >= 0, got ${String(value)}`);
  }
}

function validatePolicy(where: string, policy: TaskPolicy | undefined): void {
  if (policy === undefined) return;
  checkNonNegative(`${where}.maxTokens`, policy.maxTokens);
  checkNonNegative(`${where}.maxCostUsd`, policy.maxCostUsd);
  checkNonNegative(`${where}.maxDurationMs`, policy.maxDurationMs);
  checkNonNegative(`${where}.maxConcurrency`, policy.maxConcurrency);
  if (policy.allowedSkills !== undefined && !Array.isArray(policy.allowedSkills)) {
    throw new TypeError(`expected ${where}.allowedSkills to be an array, got ${typeof policy.allowedSkills}`);
  }
}

/**
 * Enforces `TaskPolicy` per caller. `admit` runs ADR-159's order: allowed skills, then a
 * concurrency slot per (caller, skill), then the cost estimate (the slot is given back if the
 * estimate is rejected). When `maxCostUsd` is set but neither an estimate nor `estimateCost` is
 * available, the cost check passes: actual cost is bounded by `maxTokens` and the global budget.
 */
export class TaskPolicyEngine {
  private readonly defaults: TaskPolicy;
  private readonly perCaller: Map<string, TaskPolicy>;
  private readonly estimateCost: ((input: { caller: string; skill: string }) => number) | undefined;
  private readonly clock: () => number;
  private readonly timers: TimerFunctions;
  private readonly slots = new Map<string, number>();

  constructor(options: TaskPolicyEngineOptions = {}) {
    validatePolicy('default', options.default);
    for (const [caller, policy] of Object.entries(options.perCaller ?? {})) validatePolicy(`perCaller.${caller}`, policy);
    this.defaults = { ...options.default };
    this.perCaller = new Map(Object.entries(options.perCaller ?? {}));
    this.estimateCost = options.estimateCost;
    this.clock = options.clock ?? Date.now;
    this.timers = options.timers ?? { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout };
  }

  /** The effective policy of a caller: its override merged key by key over the default. */
  policyFor(caller: string): TaskPolicy {
    const override = this.perCaller.get(caller);
    const merged: TaskPolicy = { ...this.defaults };
    if (override) {
      for (const [key, value] of Object.entries(override) as [keyof TaskPolicy, TaskPolicy[keyof TaskPolicy]][]) {
        if (value !== undefined) (merged as Record<string, unknown>)[key] = value;
      }
    }
    return merged;
  }

  /** Tasks currently holding a slot for (caller, skill). */
  activeCount(caller: string, skill: string): number {
    return this.slots.get(slotKey(caller, skill)) ?? 0;
  }

  admit(input: { caller: string; skill: string; estimatedCostUsd?: number }): PolicyAdmitResult {
    const { caller, skill } = input;
    if (typeof caller !== 'string') throw new TypeError(`expected caller to be a string, got ${typeof caller}`);
    if (typeof skill !== 'string') throw new TypeError(`expected skill to be a string, got ${typeof skill}`);
    const policy = this.policyFor(caller);

    if (policy.allowedSkills !== undefined && !policy.allowedSkills.includes(skill)) {
      return {
        ok: false,
        error: violation('allowedSkills', `skill ${skill} is not in the allowed set for caller ${caller}`, { caller, skill }),
      };
    }

    const key = slotKey(caller, skill);
    const active = this.slots.get(key) ?? 0;
    if (policy.maxConcurrency !== undefined && active >= policy.maxConcurrency) {
      return {
        ok: false,
        error: violation('maxConcurrency', `concurrency bucket full: ${caller}/${skill}`, {
          caller,
          skill,
          limit: String(policy.maxConcurrency),
          actual: String(active + 1),
        }),
      };
    }
    this.slots.set(key, active + 1);

    if (policy.maxCostUsd !== undefined) {
      const estimate = input.estimatedCostUsd ?? this.estimateCost?.({ caller, skill });
      if (estimate !== undefined && !(estimate <= policy.maxCostUsd)) {
        this.freeSlot(key);
        return {
          ok: false,
          error: violation('maxCostUsd', `task exceeds policy: maxCostUsd = ${estimate} > ${policy.maxCostUsd}`, {
            caller,
            skill,
            limit: String(policy.maxCostUsd),
            actual: String(estimate),
          }),
        };
      }
    }

    return { ok: true, admission: this.createAdmission(key, caller, skill, policy) };
  }

  private freeSlot(key: string): void {
    const active = this.slots.get(key) ?? 0;
    if (active <= 1) this.slots.delete(key);
    else this.slots.set(key, active - 1);
  }

  private createAdmission(key: string, caller: string, skill: string, policy: TaskPolicy): PolicyAdmission {
    // Without mid-task limits nothing can abort the task: share one never-aborting signal.
    const controller = policy.maxTokens === undefined && policy.maxDurationMs === undefined ? undefined : new AbortController();
    const signal = controller?.signal ?? neverAbortedSignal();
    const startedAt = this.clock();
    const clock = this.clock;
    const timers = this.timers;
    let tokensUsed = 0;
    let released = false;
    let timer: ReturnType<typeof setTimeout> | undefined;

    if (policy.maxDurationMs !== undefined) {
      const limit = policy.maxDurationMs;
      timer = timers.setTimeout(() => {
        timer = undefined;
        if (released || signal.aborted) return;
        controller?.abort(
          violation('maxDurationMs', `task exceeds policy: maxDurationMs = ${clock() - startedAt} > ${limit}`, {
            caller,
            skill,
            limit: String(limit),
            actual: String(clock() - startedAt),
          }),
        );
      }, limit);
    }

    const release = (): void => {
      if (released) return;
      released = true;
      if (timer !== undefined) timers.clearTimeout(timer);
      timer = undefined;
      this.freeSlot(key);
    };

    return {
      signal,
      get elapsedMs() {
        return clock() - startedAt;
      },
      get tokensUsed() {
        return tokensUsed;
      },
      meterTokens(tokens: number) {
        if (typeof tokens !== 'number' || !Number.isFinite(tokens) || tokens < 0) {
          throw new RangeError(`expected tokens to be a finite number >= 0, got ${String(tokens)}`);
        }
        tokensUsed += tokens;
        if (released || signal.aborted) return;
        if (policy.maxTokens !== undefined && tokensUsed > policy.maxTokens) {
          controller?.abort(
            violation('maxTokens', `task exceeds policy: maxTokens = ${tokensUsed} > ${policy.maxTokens}`, {
              caller,
              skill,
              limit: String(policy.maxTokens),
              actual: String(tokensUsed),
            }),
          );
        }
      },
      release,
    };
  }
}

function slotKey(caller: string, skill: string): string {
  return `${caller}\u0000${skill}`;
}
