import { neverAbortedSignal } from './abort.js';
import { PolicyViolationError } from '@a2aplane/a2a-types';
import type { TimerFunctions } from './budget-ledger.js';

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

/** A caller's effective policy, merged and checked once. */
interface EffectivePolicy {
  readonly policy: Readonly<TaskPolicy>;
  /** `allowedSkills` as a set; `undefined` when any skill is allowed. */
  readonly allowed: ReadonlySet<string> | undefined;
}

/** Tasks holding a slot for one (caller, skill); released admissions decrement it directly. */
interface Slot {
  active: number;
}

/** One caller's policy and its slots per skill. */
interface CallerSlots {
  readonly effective: EffectivePolicy;
  readonly skills: Map<string, Slot>;
}

const ignore = (): void => undefined;

/** Idle (zero) slots kept for reuse before a sweep drops them; a sweep runs once they are also half of all slots. */
const IDLE_SLOTS_BEFORE_SWEEP = 1024;

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
 * Policies are read once, at construction (`default` and every `perCaller` entry). Slot counters
 * of a (caller, skill) stay allocated while idle so a busy pair costs no map insert or delete per
 * task; idle ones are dropped in batches, so memory stays bounded by the pairs in use.
 */
export class TaskPolicyEngine {
  private readonly defaults: EffectivePolicy;
  private readonly perCaller: Map<string, EffectivePolicy>;
  private readonly estimateCost: ((input: { caller: string; skill: string }) => number) | undefined;
  private readonly clock: () => number;
  private readonly timers: TimerFunctions;
  private readonly slots = new Map<string, CallerSlots>();
  /** Custom (shared) slots; `undefined` counts them in `slots`. */
  private readonly shared: ConcurrencySlots | undefined;
  /** Slot counters allocated, and how many of them are at zero. */
  private slotCount = 0;
  private idleSlots = 0;

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
    return this.slots.get(caller)?.skills.get(skill)?.active ?? 0;
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
    let callerSlots = this.slots.get(caller);
    if (callerSlots === undefined) {
      callerSlots = { effective: this.perCaller.get(caller) ?? this.defaults, skills: new Map() };
      this.slots.set(caller, callerSlots);
    }
    const { policy, allowed } = callerSlots.effective;

    if (allowed !== undefined && !allowed.has(skill)) {
      return {
        ok: false,
        error: violation('allowedSkills', `skill ${skill} is not in the allowed set for caller ${caller}`, { caller, skill }),
      };
    }

    let slot = callerSlots.skills.get(skill);
    if (slot === undefined) {
      slot = { active: 0 };
      callerSlots.skills.set(skill, slot);
      this.slotCount++;
      this.idleSlots++;
    }
    const active = slot.active;
    if (policy.maxConcurrency !== undefined && active >= policy.maxConcurrency) {
      this.sweepIfIdle();
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
    if (active === 0) this.idleSlots--;
    slot.active = active + 1;

    const refusal = this.costRefusal(input, policy);
    if (refusal !== undefined) {
      this.freeSlot(slot);
      return refusal;
    }

    return { ok: true, admission: new Admission(this.freeSlot, slot, caller, skill, policy, this.clock, this.timers) };
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
    if (allowed !== undefined && !allowed.has(skill)) {
      return {
        ok: false,
        error: violation('allowedSkills', `skill ${skill} is not in the allowed set for caller ${caller}`, { caller, skill }),
      };
    }
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
    const { caller, skill } = input;
    return {
      ok: false,
      error: violation('maxConcurrency', `concurrency bucket full: ${caller}/${skill}`, {
        caller,
        skill,
        limit: String(max),
        actual: String(grant.active + 1),
      }),
    };
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

  /** Gives a slot back; admissions call it once, on release. One function per engine, shared by its admissions. */
  private readonly freeSlot = (slot: Slot): void => {
    if (--slot.active === 0) {
      this.idleSlots++;
      this.sweepIfIdle();
    }
  };

  /** Drops idle slot counters (and callers left with none) once they are many and at least half of all. */
  private sweepIfIdle(): void {
    if (this.idleSlots < IDLE_SLOTS_BEFORE_SWEEP || this.idleSlots * 2 < this.slotCount) return;
    for (const [caller, callerSlots] of this.slots) {
      for (const [skill, slot] of callerSlots.skills) {
        if (slot.active === 0) {
          callerSlots.skills.delete(skill);
          this.slotCount--;
          this.idleSlots--;
        }
      }
      if (callerSlots.skills.size === 0) this.slots.delete(caller);
    }
  }
}

/**
 * One admitted task: its slot, its signal and its mid-task limits. Without mid-task limits
 * nothing can abort the task, so it shares one never-aborting signal and owns no controller.
 * `meterTokens` and `release` are methods: call them on the admission.
 */
class Admission<S> implements PolicyAdmission {
  readonly signal: AbortSignal;
  private readonly controller: AbortController | undefined;
  private readonly startedAt: number;
  private tokens = 0;
  private usd = 0;
  private released = false;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly freeSlot: (slot: S) => void,
    private readonly slot: S,
    private readonly caller: string,
    private readonly skill: string,
    private readonly policy: Readonly<TaskPolicy>,
    private readonly clock: () => number,
    private readonly timers: TimerFunctions,
  ) {
    this.controller =
      policy.maxTokens === undefined && policy.maxDurationMs === undefined && policy.maxCostUsd === undefined
        ? undefined
        : new AbortController();
    this.signal = this.controller?.signal ?? neverAbortedSignal();
    this.startedAt = clock();
    if (policy.maxDurationMs !== undefined) {
      const limit = policy.maxDurationMs;
      this.timer = timers.setTimeout(() => {
        this.timer = undefined;
        if (this.released || this.signal.aborted) return;
        const elapsed = this.clock() - this.startedAt;
        this.controller?.abort(
          violation('maxDurationMs', `task exceeds policy: maxDurationMs = ${elapsed} > ${limit}`, {
            caller: this.caller,
            skill: this.skill,
            limit: String(limit),
            actual: String(elapsed),
          }),
        );
      }, limit);
    }
  }

  get elapsedMs(): number {
    return this.clock() - this.startedAt;
  }

  get tokensUsed(): number {
    return this.tokens;
  }

  get costUsd(): number {
    return this.usd;
  }

  meterCost(usd: number): void {
    if (typeof usd !== 'number' || !Number.isFinite(usd) || usd < 0) {
      throw new RangeError(`expected usd to be a finite number >= 0, got ${String(usd)}`);
    }
    this.usd += usd;
    if (this.released || this.signal.aborted) return;
    const limit = this.policy.maxCostUsd;
    if (limit !== undefined && this.usd > limit) {
      this.controller?.abort(
        violation('maxCostUsd', `task exceeds policy: maxCostUsd = ${this.usd} > ${limit}`, {
          caller: this.caller,
          skill: this.skill,
          limit: String(limit),
          actual: String(this.usd),
        }),
      );
    }
  }

  meterTokens(tokens: number): void {
    if (typeof tokens !== 'number' || !Number.isFinite(tokens) || tokens < 0) {
      throw new RangeError(`expected tokens to be a finite number >= 0, got ${String(tokens)}`);
    }
    this.tokens += tokens;
    if (this.released || this.signal.aborted) return;
    const limit = this.policy.maxTokens;
    if (limit !== undefined && this.tokens > limit) {
      this.controller?.abort(
        violation('maxTokens', `task exceeds policy: maxTokens = ${this.tokens} > ${limit}`, {
          caller: this.caller,
          skill: this.skill,
          limit: String(limit),
          actual: String(this.tokens),
        }),
      );
    }
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    if (this.timer !== undefined) {
      this.timers.clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.freeSlot(this.slot);
  }
}

/** Makes the task policy engine (ADR-159 r2 per-caller bounds); see `TaskPolicyEngine`. */
export function createTaskPolicyEngine(options: TaskPolicyEngineOptions = {}): TaskPolicyEngine {
  return new TaskPolicyEngine(options);
}
