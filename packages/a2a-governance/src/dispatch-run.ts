import { type A2AError, PolicyViolationError } from '@a2aplane/a2a-types';
import type { BudgetAcquireRequest, BudgetLedger, BudgetTicket } from './budget-ledger.js';
import type { GovernedTaskInput } from './governor-types.js';
import type { StageTrace } from './hooks.js';
import type { PolicyAdmission } from './task-policy.js';

/** Whatever a route can pick: an agent with an id. */
export type Candidate = { readonly id: string };

/**
 * The state of one `admit` as it moves through the gates: the input, the trace of its stage hooks
 * and every resource a gate acquired (the budget ticket, the policy slot), so that the runner can
 * give them all back on any exit.
 */
export class DispatchRun<T extends Candidate> {
  /** The budget gate's ticket, once granted. */
  ticket: BudgetTicket | undefined = undefined;
  /** The policy gate's admission (its concurrency slot), once granted. */
  admission: PolicyAdmission | undefined = undefined;
  /** Outbound: the route's candidates left after the recursion gate (`undefined`: all of them). */
  eligible: readonly T[] | undefined = undefined;
  /** Outbound: the route's pick (`undefined`: in process). */
  receiver: T | undefined = undefined;

  constructor(
    readonly input: GovernedTaskInput<T>,
    readonly trace: StageTrace | undefined,
  ) {}

  /**
   * Gives back what the gates acquired, for a task that will not run: the slot is released and the
   * ticket metered with zero spend (it still counts as one dispatch in the tasks-per-minute window).
   */
  giveBack(budget: BudgetLedger | undefined): void {
    const { admission, ticket } = this;
    this.admission = undefined;
    this.ticket = undefined;
    admission?.release();
    if (budget && ticket) void Promise.resolve(budget.meter(ticket, { usd: 0, tokens: 0 })).catch(() => undefined);
  }
}

/** Budget and recursion errors name their limit in `metadata.limit`, policy errors in `metadata.field`. */
export function reasonOf(error: A2AError, fallback: string): string {
  return (error.reason === PolicyViolationError.reason ? error.metadata.field : error.metadata.limit) ?? fallback;
}

/** The caller, skill and (when known) trace id every stage event carries. */
export function eventBase(input: GovernedTaskInput<Candidate>): { caller: string; skill: string; traceId?: string } {
  const traceId = input.incoming?.traceId;
  return traceId === undefined ? { caller: input.caller, skill: input.skill } : { caller: input.caller, skill: input.skill, traceId };
}

/** The ledger request of a task; keys are present only when known, as a custom ledger may look for them. */
export function budgetRequest(input: GovernedTaskInput<Candidate>): BudgetAcquireRequest {
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

export function isPromiseLike<V>(value: V | PromiseLike<V>): value is PromiseLike<V> {
  return typeof (value as PromiseLike<V> | undefined)?.then === 'function';
}
