import { linkAbortSignals, neverAbortedSignal } from './abort.js';
import { A2AError, BudgetExceededError, PolicyViolationError } from '@a2aplane/a2a-types';
import type { CallAuthorization, CallAuthorizer } from './authorization.js';
import type { BudgetAcquireRequest, BudgetLedger, BudgetTicket } from './budget.js';
import { type TaskContext, childContext, createRootContext, readTaskContext } from './context.js';
import type { GovernanceEvents, GovernanceStage } from './events.js';
import { checkHooks, type GovernanceHooks, hooksEnabled, StageTrace } from './hooks.js';
import type { SpendAggregator } from './lineage-ledger.js';
import type { RecursionCheck, RecursionPolicy } from './recursion-policy.js';
import type { PolicyAdmission, PolicyAdmitResult, TaskPolicyEngine } from './task-policy.js';

export interface GovernorOptions {
  /** The agent this governor guards; appended to the incoming lineage. */
  selfAgentId: string;
  /** Call authorization (trust allowlist and skill rules): the first gate, before the budget. */
  authorize?: CallAuthorizer;
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
  /** Stage start/finish hooks (tracing). */
  hooks?: GovernanceHooks;
}

/**
 * Outbound dispatch (the routing `Dispatcher`): who receives the task. The recursion gate drops the
 * candidates already in the lineage, then `select` picks one of the rest (the `selector` stage).
 */
export interface GovernedRoute<T extends { readonly id: string }> {
  /** Agents that could take the task: a named target, or every qualifying peer (never the governor's own agent). */
  readonly candidates: readonly T[];
  /** Picks the receiver; `undefined` runs the task in process. Throw an `A2AError` to refuse (a `selector` rejection). */
  select(eligible: readonly T[]): T | undefined;
}

export interface GovernedTaskInput<T extends { readonly id: string } = { readonly id: string }> {
  /**
   * Who is calling, as governance keys it: the verified AgentID when there is one, else the
   * authenticated principal. Policy, concurrency buckets and the budget request are scoped by it.
   */
  caller: string;
  /** The caller's AgentID, only when an authenticator verified the caller holds that agent's key. */
  callerAgentId?: string;
  skill: string;
  /**
   * Inbound: the sender's context read from `message.metadata.ruvector.context`, if any. Outbound
   * (with `route`): the delegating task's own context.
   */
  incoming?: TaskContext;
  /** Id of the delegating task; becomes the new context's `parentTaskId`. */
  parentTaskId?: string;
  /**
   * The trace a fresh root context joins (the current span's trace id, from instrumentation), so the
   * TaskContext and the W3C `traceparent` carry one trace. Ignored when `incoming` is set.
   */
  traceId?: string;
  estimatedCostUsd?: number;
  /** Reserved against the budget's token cap until the task finishes. */
  estimatedTokens?: number;
  /** Caller cancellation: aborts a queued budget wait and is forwarded to the task signal. */
  signal?: AbortSignal;
  /** Outbound only: recursion checks the route's candidates instead of this agent, then a selector picks one. */
  route?: GovernedRoute<T>;
}

/** What a mid-task meter call returns: the budget cut, if any, or a promise of it when a shared ledger must be asked. */
export type BudgetCut = BudgetExceededError | undefined | Promise<BudgetExceededError | undefined>;

export interface GovernedTask<T extends { readonly id: string } = { readonly id: string }> {
  /**
   * The context the task runs under: a child of the incoming one with the receiving agent appended
   * (this agent, or the route's pick), or a fresh root.
   */
  readonly context: TaskContext;
  /** Aborts on a mid-task policy limit (reason: PolicyViolationError) or when the input signal aborts (its reason). */
  readonly signal: AbortSignal;
  /** The route's pick; `undefined` inbound and when the task runs in process. */
  readonly receiver: T | undefined;
  /** The id the stage hooks carried; `undefined` when the governor has no hooks (or they were not enabled for this dispatch). */
  readonly dispatchId: string | undefined;
  /**
   * Adds tokens consumed so far: checked against the policy's `maxTokens` (past it `signal`
   * aborts) and, when the ledger caps tokens, against the task's budget reservation. Returns the
   * `BudgetExceededError` of a budget cut (this call's or an earlier one's), else `undefined`; with
   * a shared ledger whose `reserveMore` is async, a promise of the same when this call had to grow
   * the reservation (the in-process ledger never makes it return a promise).
   */
  meterTokens(tokens: number): BudgetCut;
  /** As `meterTokens`, for USD: the policy's `maxCostUsd` and the ledger's USD cap. */
  meterUsd(usd: number): BudgetCut;
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
function budgetRequest(input: GovernedTaskInput<{ readonly id: string }>): BudgetAcquireRequest {
  const { incoming, estimatedCostUsd, estimatedTokens } = input;
  const request: BudgetAcquireRequest = { caller: input.caller };
  if (incoming !== undefined) {
    request.traceId = incoming.traceId;
    request.rootAgentId = incoming.rootAgentId;
  }
  if (estimatedCostUsd !== undefined) request.estimatedUsd = estimatedCostUsd;
  if (estimatedTokens !== undefined) request.estimatedTokens = estimatedTokens;
  return request;
}

/** The caller, skill and (when known) trace id every stage event carries. */
function eventBase(input: GovernedTaskInput<{ readonly id: string }>): { caller: string; skill: string; traceId?: string } {
  const traceId = input.incoming?.traceId;
  return traceId === undefined ? { caller: input.caller, skill: input.skill } : { caller: input.caller, skill: input.skill, traceId };
}

function checkAmount(name: string, value: number | undefined): void {
  if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value) || value < 0)) {
    throw new RangeError(`expected ${name} to be a finite number >= 0, got ${String(value)}`);
  }
}

function isPromiseLike<V>(value: V | PromiseLike<V>): value is PromiseLike<V> {
  return typeof (value as PromiseLike<V> | undefined)?.then === 'function';
}

/**
 * The one governance pipeline (ARCHITECTURE "dispatch pipeline"), run inbound by a server after it
 * authenticated the caller and outbound by the routing `Dispatcher`: authorize -> budget ->
 * recursion -> [selector, outbound] -> policy, in that order, stopping at the first rejection and
 * emitting an event (and, with `hooks`, a start and a finish) per stage. A task rejected after the
 * budget gate still counts as one dispatch in the tasks-per-minute window (its ticket is metered
 * with zero spend). Whatever a later stage does — refuse or throw — the budget ticket and the
 * policy slot are given back before `admit` rejects.
 *
 * When the ledger offers `tryAcquire` (the in-memory one does), the authorizer answers
 * synchronously, the ledger grants at once and the policy's slots are in process, the whole
 * admission is decided synchronously and `admit` returns an already-settled promise; a refusal, a
 * queued wait or an aborted signal takes the `acquire` path with the same outcome and events.
 * Shared backends (a ledger without `tryAcquire`, async `ConcurrencySlots`) are awaited.
 */
export class Governor {
  private readonly options: GovernorOptions;
  private readonly hooks: GovernanceHooks | undefined;

  constructor(options: GovernorOptions) {
    if (typeof options?.selfAgentId !== 'string' || options.selfAgentId === '') {
      throw new TypeError(`expected selfAgentId to be a non-empty string, got ${typeof options?.selfAgentId}`);
    }
    if (options.authorize !== undefined && typeof options.authorize?.authorize !== 'function') {
      throw new TypeError(`expected authorize to be a CallAuthorizer, got ${typeof options.authorize}`);
    }
    checkHooks(options.hooks);
    this.options = options;
    const limits = options.budget?.reserveMore === undefined ? undefined : options.budget.snapshot().limits;
    this.budgetCaps = { usd: limits?.usd !== undefined, tokens: limits?.tokens !== undefined };
    this.hooks = options.hooks === undefined || (!options.hooks.onStageStart && !options.hooks.onStageFinish) ? undefined : options.hooks;
  }

  /** Whether the ledger caps USD or tokens (then a task's spend past its reservation is checked mid-task). */
  private readonly budgetCaps: { readonly usd: boolean; readonly tokens: boolean };

  /** The agent this governor guards. */
  get selfAgentId(): string {
    return this.options.selfAgentId;
  }

  /**
   * Reads the sender's lineage from `message.metadata` (a server calls it on every SendMessage, so
   * a `Governor` is the whole governance plug-in). Never throws: a malformed context is an error.
   */
  readTaskContext(metadata: Record<string, unknown> | undefined): ReturnType<typeof readTaskContext> {
    return readTaskContext(metadata);
  }

  /**
   * Rejects with `UnauthenticatedError` or `ForbiddenError` (authorize), `BudgetExceededError`,
   * `RecursionLimitError`, an outbound route's refusal, or `PolicyViolationError` (or the signal's reason).
   */
  admit<T extends { readonly id: string } = { readonly id: string }>(input: GovernedTaskInput<T>): Promise<GovernedTask<T>> {
    try {
      const { estimateCost } = this.options;
      if (estimateCost !== undefined && input.estimatedCostUsd === undefined) {
        const estimate = estimateCost({ caller: input.caller, skill: input.skill });
        if (estimate !== undefined) {
          checkAmount('estimateCost()', estimate);
          input = { ...input, estimatedCostUsd: estimate };
        }
      }
      const hooks = this.hooks;
      const trace =
        hooks === undefined || !hooksEnabled(hooks)
          ? undefined
          : new StageTrace(hooks, input.caller, input.skill, input.incoming?.traceId, input.estimatedCostUsd);
      const { authorize } = this.options;
      if (authorize !== undefined) {
        const started = trace?.start('authorize');
        let verdict: CallAuthorization | PromiseLike<CallAuthorization>;
        try {
          verdict = authorize.authorize(input);
        } catch (error) {
          trace?.finish('authorize', started!, 'error', 'error', error);
          throw error;
        }
        if (isPromiseLike(verdict)) {
          return Promise.resolve(verdict).then(
            (resolved) => {
              this.authorized(resolved, input, trace, started);
              return this.admitBudget(input, trace);
            },
            (error: unknown) => {
              trace?.finish('authorize', started!, 'error', 'error', error);
              throw error;
            },
          );
        }
        this.authorized(verdict, input, trace, started);
      }
      return this.admitBudget(input, trace);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Ends the authorize stage: throws the refusal, or records the acceptance. */
  private authorized(
    verdict: CallAuthorization,
    input: GovernedTaskInput<{ readonly id: string }>,
    trace: StageTrace | undefined,
    started: number | undefined,
  ): void {
    if (!verdict.allowed) this.rejected('authorize', verdict.error, 'authorize', input, trace, started);
    this.accepted('authorize', input, trace, started);
  }

  private accepted(
    stage: GovernanceStage,
    input: GovernedTaskInput<{ readonly id: string }>,
    trace: StageTrace | undefined,
    started: number | undefined,
  ): void {
    this.options.events?.emit({ type: 'accepted', stage, ...eventBase(input) });
    trace?.finish(stage, started!, 'accepted');
  }

  private rejected(
    stage: GovernanceStage,
    error: A2AError,
    fallback: string,
    input: GovernedTaskInput<{ readonly id: string }>,
    trace: StageTrace | undefined,
    started: number | undefined,
  ): never {
    const { events } = this.options;
    if (events !== undefined || trace !== undefined) {
      const reason = reasonOf(error, fallback);
      events?.emit({ type: 'rejected', stage, reason, error, ...eventBase(input) });
      trace?.finish(stage, started!, 'rejected', reason, error);
    }
    throw error;
  }

  /** The budget gate; the fast path when the ledger grants at once. */
  private admitBudget<T extends { readonly id: string }>(
    input: GovernedTaskInput<T>,
    trace: StageTrace | undefined,
  ): Promise<GovernedTask<T>> {
    const { budget } = this.options;
    if (budget === undefined) return Promise.resolve(this.admitAfterBudget(input, undefined, trace));
    const started = trace?.start('budget');
    if (budget.tryAcquire === undefined || input.signal?.aborted) return this.admitAfterWait(budget, input, trace, started);
    let ticket: BudgetTicket | undefined;
    try {
      ticket = budget.tryAcquire(budgetRequest(input));
    } catch (error) {
      trace?.finish('budget', started!, 'error', 'error', error);
      throw error;
    }
    if (ticket === undefined) return this.admitAfterWait(budget, input, trace, started);
    this.accepted('budget', input, trace, started);
    return Promise.resolve(this.admitAfterBudget(input, ticket, trace));
  }

  /** The budget gate through `acquire`: a refusal, a queued wait or an aborted signal. */
  private async admitAfterWait<T extends { readonly id: string }>(
    budget: BudgetLedger,
    input: GovernedTaskInput<T>,
    trace: StageTrace | undefined,
    started: number | undefined,
  ): Promise<GovernedTask<T>> {
    let ticket: BudgetTicket;
    try {
      ticket = await budget.acquire(budgetRequest(input), input.signal);
    } catch (error) {
      if (BudgetExceededError.isInstance(error)) this.rejected('budget', error, 'budget', input, trace, started);
      trace?.finish('budget', started!, 'error', 'error', error);
      throw error;
    }
    this.accepted('budget', input, trace, started);
    return this.admitAfterBudget(input, ticket, trace);
  }

  /** Closes a ticket of a task rejected after the budget gate: it still counts as a dispatch, with zero spend. */
  private giveBack(ticket: BudgetTicket | undefined): void {
    const { budget } = this.options;
    if (budget && ticket) void Promise.resolve(budget.meter(ticket, { usd: 0, tokens: 0 })).catch(() => undefined);
  }

  /** Inbound recursion: may this agent join the incoming lineage? */
  private checkRecursion(
    recursion: RecursionPolicy,
    incoming: TaskContext,
    input: GovernedTaskInput<{ readonly id: string }>,
    trace: StageTrace | undefined,
  ): void {
    const started = trace?.start('recursion');
    let verdict: RecursionCheck;
    try {
      verdict = recursion.check(incoming, this.options.selfAgentId);
    } catch (error) {
      trace?.finish('recursion', started!, 'error', 'error', error);
      throw error;
    }
    if (!verdict.allowed) this.rejected('recursion', verdict.error, 'recursion', input, trace, started);
    this.accepted('recursion', input, trace, started);
  }

  /**
   * Outbound recursion and selection. The depth is checked first; then candidates already in the
   * lineage (and not allowlisted) are dropped before `select` runs. When every candidate was
   * visited, the refusal is the `RecursionLimitError` of the first of them rather than the
   * selector's, so the caller learns that the call graph, not the pool, is the problem.
   */
  private routeTask<T extends { readonly id: string }>(
    route: GovernedRoute<T>,
    context: TaskContext,
    input: GovernedTaskInput<T>,
    trace: StageTrace | undefined,
  ): T | undefined {
    const { recursion } = this.options;
    let eligible = route.candidates;
    if (recursion !== undefined) {
      const started = trace?.start('recursion');
      let refusal: A2AError | undefined;
      let reason = 'revisit';
      try {
        if (context.depth >= recursion.maxCallDepth) {
          const verdict = recursion.check(context, eligible[0]?.id ?? '*');
          if (!verdict.allowed) {
            refusal = verdict.error;
            reason = 'depth';
          }
        }
        if (refusal === undefined) {
          let firstRefusal: A2AError | undefined;
          eligible = eligible.filter((candidate) => {
            const verdict = recursion.check(context, candidate.id);
            if (!verdict.allowed) firstRefusal ??= verdict.error;
            return verdict.allowed;
          });
          if (eligible.length === 0) refusal = firstRefusal;
        }
      } catch (error) {
        trace?.finish('recursion', started!, 'error', 'error', error);
        throw error;
      }
      if (refusal !== undefined) this.rejected('recursion', refusal, reason, input, trace, started);
      this.accepted('recursion', input, trace, started);
    }
    const started = trace?.start('selector');
    let picked: T | undefined;
    try {
      picked = route.select(eligible);
    } catch (error) {
      if (A2AError.isInstance(error)) this.rejected('selector', error, 'selector', input, trace, started);
      trace?.finish('selector', started!, 'error', 'error', error);
      throw error;
    }
    this.accepted('selector', input, trace, started);
    return picked;
  }

  /**
   * Recursion (or the route), policy and the task's context; any refusal or throw gives the ticket
   * and the slot back. Synchronous unless the policy's concurrency slots are shared (async).
   */
  private admitAfterBudget<T extends { readonly id: string }>(
    input: GovernedTaskInput<T>,
    ticket: BudgetTicket | undefined,
    trace: StageTrace | undefined,
  ): GovernedTask<T> | Promise<GovernedTask<T>> {
    const { recursion, policy } = this.options;
    const { incoming, route } = input;
    let receiver: T | undefined;
    let started: number | undefined;
    let result: PolicyAdmitResult | Promise<PolicyAdmitResult> | undefined;
    try {
      if (route !== undefined) {
        if (incoming === undefined) throw new TypeError("expected incoming (the delegating task's context) with route, got undefined");
        receiver = this.routeTask(route, incoming, input, trace);
      } else if (incoming !== undefined && recursion !== undefined) {
        this.checkRecursion(recursion, incoming, input, trace);
      }
      if (policy === undefined) return this.admitted(input, ticket, receiver, undefined, trace);
      started = trace?.start('policy');
      try {
        result = policy.admitAsync(
          input.estimatedCostUsd === undefined
            ? { caller: input.caller, skill: input.skill }
            : { caller: input.caller, skill: input.skill, estimatedCostUsd: input.estimatedCostUsd },
        );
      } catch (error) {
        trace?.finish('policy', started!, 'error', 'error', error);
        throw error;
      }
    } catch (error) {
      this.giveBack(ticket);
      throw error;
    }
    if (!isPromiseLike(result)) return this.admitWithPolicy(result, input, ticket, receiver, trace, started);
    return Promise.resolve(result).then(
      (settled) => this.admitWithPolicy(settled, input, ticket, receiver, trace, started),
      (error: unknown) => {
        trace?.finish('policy', started!, 'error', 'error', error);
        this.giveBack(ticket);
        throw error;
      },
    );
  }

  /** The policy stage's verdict, then the admitted task. */
  private admitWithPolicy<T extends { readonly id: string }>(
    result: PolicyAdmitResult,
    input: GovernedTaskInput<T>,
    ticket: BudgetTicket | undefined,
    receiver: T | undefined,
    trace: StageTrace | undefined,
    started: number | undefined,
  ): GovernedTask<T> {
    const admission = result.ok ? result.admission : undefined;
    try {
      if (!result.ok) this.rejected('policy', result.error, 'policy', input, trace, started);
      this.accepted('policy', input, trace, started);
      return this.admitted(input, ticket, receiver, admission, trace);
    } catch (error) {
      admission?.release();
      this.giveBack(ticket);
      throw error;
    }
  }

  /** The admitted task: its context and its one signal. */
  private admitted<T extends { readonly id: string }>(
    input: GovernedTaskInput<T>,
    ticket: BudgetTicket | undefined,
    receiver: T | undefined,
    admission: PolicyAdmission | undefined,
    trace: StageTrace | undefined,
  ): GovernedTask<T> {
    const { events, selfAgentId } = this.options;
    const { incoming } = input;
    const receivingAgentId = receiver === undefined ? selfAgentId : receiver.id;
    const context: TaskContext = incoming
      ? childContext(
          incoming,
          input.parentTaskId === undefined ? { receivingAgentId } : { receivingAgentId, parentTaskId: input.parentTaskId },
        )
      : createRootContext(
          input.traceId === undefined ? { rootAgentId: selfAgentId } : { rootAgentId: selfAgentId, traceId: input.traceId },
        );

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
            events.emit({
              type: 'aborted',
              stage: 'policy',
              reason: reasonOf(reason, 'policy'),
              error: reason,
              ...base,
              traceId: context.traceId,
            });
          }
        },
        { once: true },
      );
    }
    return new AdmittedTask<T>(
      this.options,
      context,
      signal,
      unlink,
      ticket,
      admission,
      this.budgetCaps,
      input.estimatedCostUsd ?? 0,
      // The ledger reserves whole tokens.
      Math.ceil(input.estimatedTokens ?? 0),
      input,
      receiver,
      trace?.dispatchId,
    );
  }
}

/** A task admitted by a `Governor`. `meterTokens`, `meterUsd` and `finish` are methods: call them on the task. */
class AdmittedTask<T extends { readonly id: string }> implements GovernedTask<T> {
  private finished: Promise<void> | undefined;
  /** Spend metered so far, and what the budget ticket holds for it (the estimate, grown by `reserveMore`). */
  private usd = 0;
  private tokens = 0;
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
    private reservedTokens: number,
    /** The admission's input: a budget cut's event names its caller and skill (read then, not copied per task). */
    private readonly input: GovernedTaskInput<T>,
    readonly receiver: T | undefined,
    readonly dispatchId: string | undefined,
  ) {}

  meterTokens(tokens: number): BudgetCut {
    if (this.admission) this.admission.meterTokens(tokens);
    else checkAmount('tokens', tokens);
    this.tokens += tokens;
    if (this.caps.tokens && this.tokens > this.reservedTokens) return this.reserve('tokens', this.tokens - this.reservedTokens);
    return this.cut;
  }

  meterUsd(usd: number): BudgetCut {
    if (this.admission) this.admission.meterCost(usd);
    else checkAmount('usd', usd);
    this.usd += usd;
    if (this.caps.usd && this.usd > this.reservedUsd) return this.reserve('usd', this.usd - this.reservedUsd);
    return this.cut;
  }

  /**
   * Grows the ticket's reservation to the spend so far, or cuts the task when the budget has no
   * room. A cut is returned by the meter calls rather than aborting `signal`: a controller per
   * task (its signal costs about 8 µs to make in Node 20) for a rare event is too dear. An async
   * ledger's answer is awaited in a promise; the amount counts as reserved meanwhile, so the next
   * meter call asks only for what is beyond it, and a refusal or a failure cuts the task.
   */
  private reserve(limit: 'usd' | 'tokens', more: number): BudgetCut {
    const { budget } = this.options;
    if (this.cut !== undefined || this.finished || !budget?.reserveMore || !this.ticket) return this.cut;
    const verdict = budget.reserveMore(this.ticket, limit === 'usd' ? { usd: more } : { tokens: more });
    if (limit === 'usd') this.reservedUsd += more;
    else this.reservedTokens += more;
    if (verdict === true) return undefined;
    if (verdict === false) return this.cutFor(limit, undefined);
    return Promise.resolve(verdict).then(
      (granted) => (granted ? this.cut : this.cutFor(limit, undefined)),
      (error: unknown) => this.cutFor(limit, error),
    );
  }

  /** Records the budget cut (once) and emits its event; `failure` is set when the ledger could not answer. */
  private cutFor(limit: 'usd' | 'tokens', failure: unknown): BudgetExceededError | undefined {
    if (this.cut !== undefined || this.finished) return this.cut;
    const spent = limit === 'usd' ? this.usd : this.tokens;
    const error =
      failure === undefined
        ? new BudgetExceededError({
            message: `global budget exceeded mid-task: the task's ${limit} spend (${spent}) outgrew its reservation and the window has no room`,
            metadata: { limit, actual: String(spent) },
          })
        : new BudgetExceededError({
            message: `global budget could not confirm the task's ${limit} spend (${spent}) past its reservation: the ledger did not answer`,
            metadata: { limit, actual: String(spent), cause: 'ledger_unavailable' },
          });
    this.cut = error;
    this.options.events?.emit({
      type: 'aborted',
      stage: 'budget',
      reason: limit,
      error,
      ...eventBase(this.input),
      traceId: this.context.traceId,
    });
    return error;
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
      this.finished =
        budget && ticket ? budget.meter(ticket, { usd, tokens, traceId: context.traceId, rootAgentId: context.rootAgentId }) : settled();
    } catch (error) {
      this.finished = Promise.reject(error);
    }
    return this.finished;
  }
}
