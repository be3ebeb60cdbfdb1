import { LocalSlots } from './local-slots.js';
import { Admission } from './policy-admission.js';
import { concurrencyRefusal, skillRefusal, violation } from './policy-violations.js';
import type { TimerFunctions } from './budget-ledger.js';
import type { ConcurrencySlots, PolicyAdmitInput, PolicyAdmitResult, SlotGrant, SlotLease, TaskPolicy } from './task-policy-types.js';

export type {
  ConcurrencySlots,
  PolicyAdmission,
  PolicyAdmitInput,
  PolicyAdmitResult,
  SlotGrant,
  SlotLease,
  TaskPolicy,
} from './task-policy-types.js';

/** Concurrent tasks per (caller, skill) when no policy sets `maxConcurrency` (ADR-159 mitigation 1). */
export const DEFAULT_MAX_CONCURRENCY = 16;

export interface TaskPolicyEngineOptions {
  default?: TaskPolicy;
  /** Per-caller overrides, merged key by key over `default`. */
  perCaller?: Record<string, TaskPolicy>;
  /** Estimates a task's cost when `admit` is not given one. */
  estimateCost?: (input: { caller: string; skill: string }) => number;
  clock?: () => number;
  timers?: TimerFunctions;
  /**
   * Where concurrency slots are counted. Default: in this process (synchronous, what `admit`
   * needs). A shared backend (`createRedisConcurrencySlots` of `@a2aplane/a2a-redis`) counts them
   * across replicas and answers with promises: use `admitAsync` (the `Governor` does).
   */
  slots?: ConcurrencySlots;
}

export type { PolicyField } from './policy-violations.js';

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

/** A caller's effective policy, merged and checked once. */
interface EffectivePolicy {
  readonly policy: Readonly<TaskPolicy>;
  /** `allowedSkills` as a set; `undefined` when any skill is allowed. */
  readonly allowed: ReadonlySet<string> | undefined;
}

const ignore = (): void => undefined;

function merge(defaults: TaskPolicy, override: TaskPolicy | undefined): TaskPolicy {
  const merged: TaskPolicy = { ...defaults };
  if (override) {
    for (const [key, value] of Object.entries(override) as [keyof TaskPolicy, TaskPolicy[keyof TaskPolicy]][]) {
      if (value !== undefined) (merged as Record<string, unknown>)[key] = value;
    }
  }
  return merged;
}

function effectivePolicy(policy: TaskPolicy): EffectivePolicy {
  const frozen: TaskPolicy = Object.freeze({
    ...policy,
    ...(policy.allowedSkills === undefined ? {} : { allowedSkills: Object.freeze([...policy.allowedSkills]) as string[] }),
  });
  return { policy: frozen, allowed: frozen.allowedSkills === undefined ? undefined : new Set(frozen.allowedSkills) };
}

/**
 * Enforces `TaskPolicy` per caller. `admit` runs ADR-159's order: allowed skills, then a
 * concurrency slot per (caller, skill), then the cost estimate (the slot is given back if the
 * estimate is rejected). When `maxCostUsd` is set but neither an estimate nor `estimateCost` is
 * available, the cost check passes: actual cost is bounded by `maxTokens` and the global budget.
 *
 * Policies are read once, at construction (`default` and every `perCaller` entry). Without shared
 * `slots`, slots are counted in this process by `LocalSlots`.
 */
export class TaskPolicyEngine {
  private readonly defaults: EffectivePolicy;
  private readonly perCaller: Map<string, EffectivePolicy>;
  private readonly estimateCost: ((input: { caller: string; skill: string }) => number) | undefined;
  private readonly clock: () => number;
  private readonly timers: TimerFunctions;
  private readonly local = new LocalSlots<EffectivePolicy>((caller) => this.perCaller.get(caller) ?? this.defaults);
  /** Custom (shared) slots; `undefined` counts them in `local`. */
  private readonly shared: ConcurrencySlots | undefined;

  constructor(options: TaskPolicyEngineOptions = {}) {
    validatePolicy('default', options.default);
    for (const [caller, policy] of Object.entries(options.perCaller ?? {})) validatePolicy(`perCaller.${caller}`, policy);
    const defaults = { ...options.default };
    // Safe by default: a deployment that never thought about concurrency still gets a cap.
    if (defaults.maxConcurrency === undefined) defaults.maxConcurrency = DEFAULT_MAX_CONCURRENCY;
    this.defaults = effectivePolicy(defaults);
    this.perCaller = new Map(
      Object.entries(options.perCaller ?? {}).map(([caller, policy]) => [caller, effectivePolicy(merge(defaults, policy))]),
    );
    this.estimateCost = options.estimateCost;
    if (options.slots !== undefined && (typeof options.slots.acquire !== 'function' || typeof options.slots.release !== 'function')) {
      throw new TypeError('expected slots to be ConcurrencySlots (acquire and release functions)');
    }
    this.shared = options.slots;
    this.clock = options.clock ?? Date.now;
    this.timers = options.timers ?? { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout };
  }

  /** The effective policy of a caller: its override merged key by key over the default. */
  policyFor(caller: string): TaskPolicy {
    const { policy } = this.perCaller.get(caller) ?? this.defaults;
    return { ...policy, ...(policy.allowedSkills === undefined ? {} : { allowedSkills: [...policy.allowedSkills] }) };
  }

  /** Tasks currently holding a slot for (caller, skill) in this process's slots (0 with shared `slots`). */
  activeCount(caller: string, skill: string): number {
    return this.local.active(caller, skill);
  }

  /**
   * Admits a task or says why not. Synchronous: with async `slots` it throws a `TypeError` (use
   * `admitAsync`).
   */
  admit(input: PolicyAdmitInput): PolicyAdmitResult {
    const { caller, skill } = input;
    if (typeof caller !== 'string') throw new TypeError(`expected caller to be a string, got ${typeof caller}`);
    if (typeof skill !== 'string') throw new TypeError(`expected skill to be a string, got ${typeof skill}`);
    if (this.shared !== undefined) {
      const result = this.admitShared(input, this.shared);
      if (!(result instanceof Promise)) return result;
      void result.then((settled) => settled.ok && settled.admission.release(), ignore);
      throw new TypeError('expected synchronous concurrency slots in admit(): these answer with promises, use admitAsync()');
    }
    const local = this.local;
    const entry = local.caller(caller);
    const { policy, allowed } = entry.policy;
    if (allowed !== undefined && !allowed.has(skill)) return skillRefusal(caller, skill);

    const slot = local.slot(entry, skill);
    if (policy.maxConcurrency !== undefined && slot.active >= policy.maxConcurrency) {
      local.sweepIfIdle();
      return concurrencyRefusal(caller, skill, policy.maxConcurrency, slot.active);
    }
    local.take(slot);

    const refusal = this.costRefusal(input, policy);
    if (refusal !== undefined) {
      local.free(slot);
      return refusal;
    }
    return { ok: true, admission: new Admission(local.free, slot, caller, skill, policy, this.clock, this.timers) };
  }

  /**
   * As `admit`, for any `slots`: the verdict, or a promise of it when the slots are shared. A
   * rejected promise (the backend failed) holds no slot.
   */
  admitAsync(input: PolicyAdmitInput): PolicyAdmitResult | Promise<PolicyAdmitResult> {
    if (this.shared === undefined) return this.admit(input);
    const { caller, skill } = input;
    if (typeof caller !== 'string') throw new TypeError(`expected caller to be a string, got ${typeof caller}`);
    if (typeof skill !== 'string') throw new TypeError(`expected skill to be a string, got ${typeof skill}`);
    return this.admitShared(input, this.shared);
  }

  /** `admit` over shared slots: the same order and refusals, the slot counted by `slots`. */
  private admitShared(input: PolicyAdmitInput, slots: ConcurrencySlots): PolicyAdmitResult | Promise<PolicyAdmitResult> {
    const { caller, skill } = input;
    const { policy, allowed } = this.perCaller.get(caller) ?? this.defaults;
    if (allowed !== undefined && !allowed.has(skill)) return skillRefusal(caller, skill);
    const max = policy.maxConcurrency;
    if (max === undefined || max === Number.POSITIVE_INFINITY) return this.afterSlot(input, policy, undefined, slots);
    const grant = slots.acquire(caller, skill, max);
    if (!(grant instanceof Promise)) return this.slotGranted(input, policy, max, grant, slots);
    return grant.then((settled) => this.slotGranted(input, policy, max, settled, slots));
  }

  private slotGranted(
    input: PolicyAdmitInput,
    policy: Readonly<TaskPolicy>,
    max: number,
    grant: SlotGrant,
    slots: ConcurrencySlots,
  ): PolicyAdmitResult {
    if (grant.ok) return this.afterSlot(input, policy, grant.lease, slots);
    return concurrencyRefusal(input.caller, input.skill, max, grant.active);
  }

  /** The cost check after the slot (given back on refusal), then the admission. */
  private afterSlot(
    input: PolicyAdmitInput,
    policy: Readonly<TaskPolicy>,
    lease: SlotLease | undefined,
    slots: ConcurrencySlots,
  ): PolicyAdmitResult {
    const { caller, skill } = input;
    const free = lease === undefined ? ignore : () => slots.release(lease);
    const refusal = this.costRefusal(input, policy);
    if (refusal !== undefined) {
      free();
      return refusal;
    }
    return { ok: true, admission: new Admission<undefined>(free, undefined, caller, skill, policy, this.clock, this.timers) };
  }

  /** The refusal of a cost estimate above `maxCostUsd`, if any. */
  private costRefusal(input: PolicyAdmitInput, policy: Readonly<TaskPolicy>): PolicyAdmitResult | undefined {
    if (policy.maxCostUsd === undefined) return undefined;
    const { caller, skill } = input;
    const estimate = input.estimatedCostUsd ?? this.estimateCost?.({ caller, skill });
    if (estimate === undefined || estimate <= policy.maxCostUsd) return undefined;
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

/** Makes the task policy engine (ADR-159 r2 per-caller bounds); see `TaskPolicyEngine`. */
export function createTaskPolicyEngine(options: TaskPolicyEngineOptions = {}): TaskPolicyEngine {
  return new TaskPolicyEngine(options);
}
