import { linkAbortSignals, neverAbortedSignal } from './abort.js';
import { A2AError, BudgetExceededError, PolicyViolationError } from '@a2aplane/a2a-types';
import type { BudgetAcquireRequest, BudgetLedger, BudgetTicket } from './budget.js';
import { type TaskContext, childContext, createRootContext } from './context.js';
import type { GovernanceEvents } from './events.js';
import type { SpendAggregator } from './lineage-ledger.js';
import type { RecursionCheck, RecursionPolicy } from './recursion-policy.js';
import type { PolicyAdmission, TaskPolicyEngine } from './task-policy.js';

export interface GovernorOptions {
  /** The agent this governor guards; appended to the incoming lineage. */
  selfAgentId: string;
  budget?: BudgetLedger;
  recursion?: RecursionPolicy;
  policy?: TaskPolicyEngine;
  events?: GovernanceEvents;
  spend?: SpendAggregator;
  /**
   * Estimates a task's cost when `admit` is given none (the operator config's `cost` block, see
   * `materializeConfig`). The estimate is reserved against the global budget and checked against
   * the policy's `maxCostUsd` before the task runs. `undefined` means unknown.
   */
  estimateCost?: (input: { caller: string; skill: string }) => number | undefined;
}

export interface GovernedTaskInput {
  /** Authenticated caller identity (AgentID or principal); the policy is scoped by it. */
  caller: string;
  skill: string;
  /** The sender's context read from `message.metadata.ruvector.context`, if any. */
  incoming?: TaskContext;
  /** Id of the delegating task; becomes the new context's `parentTaskId`. */
  parentTaskId?: string;
  estimatedCostUsd?: number;
  /** Caller cancellation: aborts a queued budget wait and is forwarded to the task signal. */
  signal?: AbortSignal;
}

export interface GovernedTask {
  /** The context the task runs under: a child of the incoming one with `selfAgentId` appended, or a fresh root. */
  readonly context: TaskContext;
  /** Aborts on a mid-task policy limit (reason: PolicyViolationError) or when the input signal aborts (its reason). */
  readonly signal: AbortSignal;
  /**
   * Adds tokens consumed so far: checked against the policy's `maxTokens` (past it `signal`
   * aborts) and, when the ledger caps tokens, against the task's budget reservation. Returns the
   * `BudgetExceededError` of a budget cut (this call's or an earlier one's), else `undefined`.
   */
  meterTokens(tokens: number): BudgetExceededError | undefined;
  /** As `meterTokens`, for USD: the policy's `maxCostUsd` and the ledger's USD cap. */
  meterUsd(usd: number): BudgetExceededError | undefined;
  /** Idempotent: meters the ledger, records spend along the lineage, releases the policy slot. */
  finish(actual: { usd?: number; tokens?: number }): Promise<void>;
}

/** Budget and recursion errors name their limit in `metadata.limit`, policy errors in `metadata.field`. */
function reasonOf(error: A2AError, fallback: string): string {
  return (error.reason === PolicyViolationError.reason ? error.metadata.field : error.metadata.limit) ?? fallback;
}

let resolvedVoid: Promise<void> | undefined;
const settled = (): Promise<void> => {
  resolvedVoid ??= Promise.resolve();
  return resolvedVoid;
};

/** The ledger request of a task; keys are present only when known, as a custom ledger may look for them. */
function budgetRequest(input: GovernedTaskInput): BudgetAcquireRequest {
  const { incoming, estimatedCostUsd } = input;
  if (incoming === undefined) return estimatedCostUsd === undefined ? {} : { estimatedUsd: estimatedCostUsd };
  return estimatedCostUsd === undefined
    ? { traceId: incoming.traceId, rootAgentId: incoming.rootAgentId }
    : { traceId: incoming.traceId, rootAgentId: incoming.rootAgentId, estimatedUsd: estimatedCostUsd };
}

/** The caller, skill and (when known) trace id every stage event carries. */
function eventBase(input: GovernedTaskInput): { caller: string; skill: string; traceId?: string } {
  const traceId = input.incoming?.traceId;
  return traceId === undefined ? { caller: input.caller, skill: input.skill } : { caller: input.caller, skill: input.skill, traceId };
}

function checkAmount(name: string, value: number | undefined): void {
  if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value) || value < 0)) {
    throw new RangeError(`expected ${name} to be a finite number >= 0, got ${String(value)}`);
  }
}

/**
 * The inbound gate a server runs after authenticating the caller (ARCHITECTURE "dispatch
 * pipeline"): budget -> recursion -> policy, in that order, stopping at the first rejection and
 * emitting an event per stage. A task rejected after the budget gate still counts as one dispatch
 * in the tasks-per-minute window (its ticket is metered with zero spend).
 *
 * When the ledger offers `tryAcquire` (the in-memory one does) and grants at once, the whole
 * admission is decided synchronously and `admit` returns an already-settled promise; a refusal,
 * a queued wait or an aborted signal takes the `acquire` path with the same outcome and events.
 */
export class Governor {
  private readonly options: GovernorOptions;

  constructor(options: GovernorOptions) {
    if (typeof options?.selfAgentId !== 'string' || options.selfAgentId === '') {
      throw new TypeError(`expected selfAgentId to be a non-empty string, got ${typeof options?.selfAgentId}`);
    }
    this.options = options;
    const limits = options.budget?.reserveMore === undefined ? undefined : options.budget.snapshot().limits;
    this.budgetCaps = { usd: limits?.usd !== undefined, tokens: limits?.tokens !== undefined };
  }

  /** Whether the ledger caps USD or tokens (then a task's spend past its reservation is checked mid-task). */
  private readonly budgetCaps: { readonly usd: boolean; readonly tokens: boolean };

  /** Rejects with `BudgetExceededError`, `RecursionLimitError` or `PolicyViolationError` (or the signal's reason). */
  admit(input: GovernedTaskInput): Promise<GovernedTask> {
    try {
      const { budget, events, estimateCost } = this.options;
      if (estimateCost !== undefined && input.estimatedCostUsd === undefined) {
        const estimate = estimateCost({ caller: input.caller, skill: input.skill });
        if (estimate !== undefined) {
          checkAmount('estimateCost()', estimate);
          input = { ...input, estimatedCostUsd: estimate };
        }
      }
      if (budget === undefined) return Promise.resolve(this.admitAfterBudget(input, undefined));
      if (budget.tryAcquire === undefined || input.signal?.aborted) return this.admitAfterWait(budget, input);
      const ticket = budget.tryAcquire(budgetRequest(input));
      if (ticket === undefined) return this.admitAfterWait(budget, input);
      events?.emit({ type: 'accepted', stage: 'budget', ...eventBase(input) });
      return Promise.resolve(this.admitAfterBudget(input, ticket));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The budget gate through `acquire`: a refusal, a queued wait or an aborted signal. */
  private async admitAfterWait(budget: BudgetLedger, input: GovernedTaskInput): Promise<GovernedTask> {
    const { events } = this.options;
    let ticket: BudgetTicket;
    try {
      ticket = await budget.acquire(budgetRequest(input), input.signal);
    } catch (error) {
      if (events && BudgetExceededError.isInstance(error)) {
        events.emit({ type: 'rejected', stage: 'budget', reason: reasonOf(error, 'budget'), error, ...eventBase(input) });
      }
      throw error;
    }
    events?.emit({ type: 'accepted', stage: 'budget', ...eventBase(input) });
    return this.admitAfterBudget(input, ticket);
  }

  /** Closes a ticket of a task rejected after the budget gate: it still counts as a dispatch, with zero spend. */
  private giveBack(ticket: BudgetTicket | undefined): void {
    const { budget } = this.options;
    if (budget && ticket) void budget.meter(ticket, { usd: 0, tokens: 0 });
  }

  /** Recursion and policy, synchronously; a rejection gives the budget ticket back before it throws. */
  private admitAfterBudget(input: GovernedTaskInput, ticket: BudgetTicket | undefined): GovernedTask {
    const { recursion, policy, events, selfAgentId } = this.options;
    const { incoming } = input;

    if (incoming && recursion) {
      let verdict: RecursionCheck;
      try {
        verdict = recursion.check(incoming, selfAgentId);
      } catch (error) {
        this.giveBack(ticket);
        throw error;
      }
      if (!verdict.allowed) {
        this.giveBack(ticket);
        events?.emit({ type: 'rejected', stage: 'recursion', reason: reasonOf(verdict.error, 'recursion'), error: verdict.error, ...eventBase(input) });
        throw verdict.error;
      }
      events?.emit({ type: 'accepted', stage: 'recursion', ...eventBase(input) });
    }

    let admission: PolicyAdmission | undefined;
    if (policy) {
      let result: ReturnType<TaskPolicyEngine['admit']>;
      try {
        result = policy.admit(
          input.estimatedCostUsd === undefined
            ? { caller: input.caller, skill: input.skill }
            : { caller: input.caller, skill: input.skill, estimatedCostUsd: input.estimatedCostUsd },
        );
      } catch (error) {
        this.giveBack(ticket);
        throw error;
      }
      if (!result.ok) {
        this.giveBack(ticket);
        events?.emit({ type: 'rejected', stage: 'policy', reason: reasonOf(result.error, 'policy'), error: result.error, ...eventBase(input) });
        throw result.error;
      }
      admission = result.admission;
      events?.emit({ type: 'accepted', stage: 'policy', ...eventBase(input) });
    }

    let context: TaskContext;
    try {
      context = incoming
        ? childContext(
            incoming,
            input.parentTaskId === undefined ? { receivingAgentId: selfAgentId } : { receivingAgentId: selfAgentId, parentTaskId: input.parentTaskId },
          )
        : createRootContext({ rootAgentId: selfAgentId });
    } catch (error) {
      admission?.release();
      this.giveBack(ticket);
      throw error;
    }

    // One signal for the runner: policy limits and caller cancellation. Only two live sources
    // need a controller of their own; otherwise the one live signal (or the shared never-aborting
    // one) is passed through.
    const never = neverAbortedSignal();
    const policySignal = admission?.signal;
    const livePolicy = policySignal !== undefined && policySignal !== never;
    const liveCaller = input.signal !== undefined && input.signal !== never;
    let signal: AbortSignal;
    let unlink: (() => void) | undefined;
    if (livePolicy && liveCaller) {
      const linked = linkAbortSignals([policySignal, input.signal]);
      signal = linked.signal;
      unlink = linked.unlink;
    } else signal = livePolicy ? policySignal : liveCaller ? input.signal! : never;
    if (livePolicy && events) {
      const base = eventBase(input);
      policySignal.addEventListener(
        'abort',
        () => {
          const reason = policySignal.reason;
          if (A2AError.isInstance(reason)) {
            events.emit({ type: 'aborted', stage: 'policy', reason: reasonOf(reason, 'policy'), error: reason, ...base, traceId: context.traceId });
          }
        },
        { once: true },
      );
    }
    return new AdmittedTask(this.options, context, signal, unlink, ticket, admission, this.budgetCaps, input.estimatedCostUsd ?? 0, eventBase(input));
  }
}

/** A task admitted by a `Governor`. `meterTokens`, `meterUsd` and `finish` are methods: call them on the task. */
class AdmittedTask implements GovernedTask {
  private finished: Promise<void> | undefined;
  /** Spend metered so far, and what the budget ticket holds for it (the estimate, grown by `reserveMore`). */
  private usd = 0;
  private tokens = 0;
  private reservedTokens = 0;
  /** The budget cut, once spend outgrew the reservation with no room left. */
  private cut: BudgetExceededError | undefined;

  constructor(
    private readonly options: GovernorOptions,
    readonly context: TaskContext,
    readonly signal: AbortSignal,
    private readonly unlink: (() => void) | undefined,
    private readonly ticket: BudgetTicket | undefined,
    private readonly admission: PolicyAdmission | undefined,
    /** Which spend the ledger caps (only that is checked against the reservation). */
    private readonly caps: { readonly usd: boolean; readonly tokens: boolean },
    private reservedUsd: number,
    private readonly base: { caller: string; skill: string; traceId?: string },
  ) {}

  meterTokens(tokens: number): BudgetExceededError | undefined {
    if (this.admission) this.admission.meterTokens(tokens);
    else checkAmount('tokens', tokens);
    this.tokens += tokens;
    if (this.caps.tokens && this.tokens > this.reservedTokens) this.reserve('tokens', this.tokens - this.reservedTokens);
    return this.cut;
  }

  meterUsd(usd: number): BudgetExceededError | undefined {
    if (this.admission) this.admission.meterCost(usd);
    else checkAmount('usd', usd);
    this.usd += usd;
    if (this.caps.usd && this.usd > this.reservedUsd) this.reserve('usd', this.usd - this.reservedUsd);
    return this.cut;
  }

  /**
   * Grows the ticket's reservation to the spend so far, or cuts the task when the budget has no
   * room. A cut is returned by the meter calls rather than aborting `signal`: a controller per
   * task (its signal costs about 8 µs to make in Node 20) for a rare event is too dear.
   */
  private reserve(limit: 'usd' | 'tokens', more: number): void {
    const { budget, events } = this.options;
    if (this.cut !== undefined || this.finished || !budget?.reserveMore || !this.ticket) return;
    if (budget.reserveMore(this.ticket, limit === 'usd' ? { usd: more } : { tokens: more })) {
      if (limit === 'usd') this.reservedUsd += more;
      else this.reservedTokens += more;
      return;
    }
    const error = new BudgetExceededError({
      message: `global budget exceeded mid-task: the task's ${limit} spend (${limit === 'usd' ? this.usd : this.tokens}) outgrew its reservation and the window has no room`,
      metadata: { limit, actual: String(limit === 'usd' ? this.usd : this.tokens) },
    });
    this.cut = error;
    events?.emit({ type: 'aborted', stage: 'budget', reason: limit, error, ...this.base, traceId: this.context.traceId });
  }

  finish(actual: { usd?: number; tokens?: number }): Promise<void> {
    if (this.finished) return this.finished;
    try {
      // Checked before anything is closed, so a caller can retry with valid amounts.
      checkAmount('usd', actual?.usd);
      checkAmount('tokens', actual?.tokens);
    } catch (error) {
      return Promise.reject(error);
    }
    const { budget, spend, events } = this.options;
    const { context, admission, ticket } = this;
    this.unlink?.();
    admission?.release();
    const usd = actual?.usd ?? this.usd;
    const tokens = actual?.tokens ?? this.tokens;
    spend?.record({ traceId: context.traceId, rootAgentId: context.rootAgentId, usd, tokens });
    events?.emit({ type: 'metered', traceId: context.traceId, rootAgentId: context.rootAgentId, usd, tokens });
    try {
      this.finished = budget && ticket ? budget.meter(ticket, { usd, tokens, traceId: context.traceId, rootAgentId: context.rootAgentId }) : settled();
    } catch (error) {
      this.finished = Promise.reject(error);
    }
    return this.finished;
  }
}
