import type { BudgetExceededError } from '@a2aplane/a2a-types';
import type { CallAuthorizer } from './authorization.js';
import type { BudgetLedger } from './budget-ledger.js';
import type { TaskContext } from './context.js';
import type { GovernanceEvents } from './events.js';
import type { GovernanceHooks } from './hooks.js';
import type { SpendAggregator } from './lineage-ledger.js';
import type { RecursionPolicy } from './recursion-policy.js';
import type { TaskPolicyEngine } from './task-policy.js';

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
  /**
   * Lets the ledger cap USD with no `estimateCost`. Without an estimate a task reserves nothing,
   * so tasks admitted together can spend past the cap (ADR-159's bound: cap + concurrent tasks x
   * per-task cost). Set it only when every `admit` passes `estimatedCostUsd`, or to accept that
   * bound; otherwise `createGovernor` throws a `GovernorOptionsError` naming `estimateCost`. Default false.
   */
  allowUnestimatedUsd?: boolean;
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
  /**
   * True when `signal` is the shared signal that never aborts (no mid-task limit, no input signal):
   * a runner need not listen to it.
   */
  readonly signalNeverAborts: boolean;
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
