import { A2AError, BudgetExceededError } from '@a2aplane/a2a-types';
import { linkAbortSignals, neverAbortedSignal } from './abort.js';
import { checkAmount } from './amounts.js';
import type { BudgetTicket } from './budget-ledger.js';
import { childContext, createRootContext, type TaskContext } from './context.js';
import { type Candidate, type DispatchRun, eventBase, reasonOf } from './dispatch-run.js';
import type { BudgetCut, GovernedTask, GovernedTaskInput, GovernorOptions } from './governor-types.js';
import type { PolicyAdmission } from './task-policy.js';

let resolvedVoid: Promise<void> | undefined;
const settled = (): Promise<void> => {
  resolvedVoid ??= Promise.resolve();
  return resolvedVoid;
};

/** Which spend the ledger caps: only that is checked against a task's reservation mid-task. */
export interface BudgetCaps {
  readonly usd: boolean;
  readonly tokens: boolean;
}

/** The task of a run that passed every gate: its context and its one signal. */
export function createAdmittedTask<T extends Candidate>(options: GovernorOptions, caps: BudgetCaps, run: DispatchRun<T>): GovernedTask<T> {
  const { events, selfAgentId } = options;
  const { input, receiver, admission } = run;
  const { incoming } = input;
  const receivingAgentId = receiver === undefined ? selfAgentId : receiver.id;
  const context: TaskContext = incoming
    ? childContext(
        incoming,
        input.parentTaskId === undefined ? { receivingAgentId } : { receivingAgentId, parentTaskId: input.parentTaskId },
      )
    : createRootContext(input.traceId === undefined ? { rootAgentId: selfAgentId } : { rootAgentId: selfAgentId, traceId: input.traceId });

  // One signal for the runner: policy limits and caller cancellation. Only two live sources
  // need a controller of their own; otherwise the one live signal (or the shared never-aborting
  // one) is passed through.
  const never = neverAbortedSignal();
  const policySignal = admission?.signal;
  const callerSignal = input.signal;
  const livePolicy = policySignal !== undefined && policySignal !== never;
  let signal: AbortSignal = never;
  let unlink: (() => void) | undefined;
  if (callerSignal !== undefined && callerSignal !== never) {
    if (livePolicy) {
      const linked = linkAbortSignals([policySignal, callerSignal]);
      signal = linked.signal;
      unlink = linked.unlink;
    } else signal = callerSignal;
  } else if (livePolicy) signal = policySignal;
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
    options,
    context,
    signal,
    unlink,
    run.ticket,
    admission,
    caps,
    input.estimatedCostUsd ?? 0,
    // The ledger reserves whole tokens.
    Math.ceil(input.estimatedTokens ?? 0),
    input,
    receiver,
    run.trace?.dispatchId,
  );
}

/** A task admitted by a `Governor`. `meterTokens`, `meterUsd` and `finish` are methods: call them on the task. */
class AdmittedTask<T extends Candidate> implements GovernedTask<T> {
  private finished: Promise<void> | undefined;
  /** Spend metered so far, and what the budget ticket holds for it (the estimate, grown by `reserveMore`). */
  private usd = 0;
  private tokens = 0;
  /** The budget cut, once spend outgrew the reservation with no room left. */
  private cut: BudgetExceededError | undefined;
  readonly signalNeverAborts: boolean;

  constructor(
    private readonly options: GovernorOptions,
    readonly context: TaskContext,
    readonly signal: AbortSignal,
    private readonly unlink: (() => void) | undefined,
    private readonly ticket: BudgetTicket | undefined,
    private readonly admission: PolicyAdmission | undefined,
    /** Which spend the ledger caps (only that is checked against the reservation). */
    private readonly caps: BudgetCaps,
    private reservedUsd: number,
    private reservedTokens: number,
    /** The admission's input: a budget cut's event names its caller and skill (read then, not copied per task). */
    private readonly input: GovernedTaskInput<T>,
    readonly receiver: T | undefined,
    readonly dispatchId: string | undefined,
  ) {
    this.signalNeverAborts = signal === neverAbortedSignal();
  }

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
