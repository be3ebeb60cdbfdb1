import { neverAbortedSignal } from './abort.js';
import type { TimerFunctions } from './budget-ledger.js';
import { violation } from './policy-violations.js';
import type { PolicyAdmission, TaskPolicy } from './task-policy-types.js';

/**
 * One admitted task: its slot, its signal and its mid-task limits. Without mid-task limits
 * nothing can abort the task, so it shares one never-aborting signal and owns no controller.
 * `meterTokens` and `release` are methods: call them on the admission.
 */
export class Admission<S> implements PolicyAdmission {
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
