import { linkAbortSignals, neverAbortedSignal } from './abort.js';
import { A2AError, BudgetExceededError, PolicyViolationError } from '@a2aplane/a2a-types';
import type { BudgetLedger, BudgetTicket } from './budget.js';
import { type TaskContext, childContext, createRootContext } from './context.js';
import type { GovernanceEvents } from './events.js';
import type { SpendAggregator } from './lineage-ledger.js';
import type { RecursionPolicy } from './recursion-policy.js';
import type { PolicyAdmission, TaskPolicyEngine } from './task-policy.js';

export interface GovernorOptions {
  /** The agent this governor guards; appended to the incoming lineage. */
  selfAgentId: string;
  budget?: BudgetLedger;
  recursion?: RecursionPolicy;
  policy?: TaskPolicyEngine;
  events?: GovernanceEvents;
  spend?: SpendAggregator;
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
  /** Aborts on a mid-task policy limit (reason: PolicyViolationError) or when the input signal aborts. */
  readonly signal: AbortSignal;
  meterTokens(tokens: number): void;
  /** Idempotent: meters the ledger, records spend along the lineage, releases the policy slot. */
  finish(actual: { usd?: number; tokens?: number }): Promise<void>;
}

/** Budget and recursion errors name their limit in `metadata.limit`, policy errors in `metadata.field`. */
function reasonOf(error: A2AError, fallback: string): string {
  return (error.reason === PolicyViolationError.reason ? error.metadata.field : error.metadata.limit) ?? fallback;
}

/**
 * The inbound gate a server runs after authenticating the caller (ARCHITECTURE "dispatch
 * pipeline"): budget -> recursion -> policy, in that order, stopping at the first rejection and
 * emitting an event per stage. A task rejected after the budget gate still counts as one dispatch
 * in the tasks-per-minute window (its ticket is metered with zero spend).
 */
export class Governor {
  private readonly options: GovernorOptions;

  constructor(options: GovernorOptions) {
    if (typeof options?.selfAgentId !== 'string' || options.selfAgentId === '') {
      throw new TypeError(`expected selfAgentId to be a non-empty string, got ${typeof options?.selfAgentId}`);
    }
    this.options = options;
  }

  /** Throws `BudgetExceededError`, `RecursionLimitError` or `PolicyViolationError` (or the signal's reason). */
  async admit(input: GovernedTaskInput): Promise<GovernedTask> {
    const { budget, recursion, policy, events, spend, selfAgentId } = this.options;
    const { caller, skill, incoming } = input;
    const traceId = incoming?.traceId;
    const base = { caller, skill, ...(traceId === undefined ? {} : { traceId }) };

    let ticket: BudgetTicket | undefined;
    if (budget) {
      try {
        ticket = await budget.acquire(
          {
            ...(traceId === undefined ? {} : { traceId }),
            ...(incoming === undefined ? {} : { rootAgentId: incoming.rootAgentId }),
            ...(input.estimatedCostUsd === undefined ? {} : { estimatedUsd: input.estimatedCostUsd }),
          },
          input.signal,
        );
      } catch (error) {
        if (BudgetExceededError.isInstance(error)) {
          events?.emit({ type: 'rejected', stage: 'budget', reason: reasonOf(error, 'budget'), error, ...base });
        }
        throw error;
      }
      events?.emit({ type: 'accepted', stage: 'budget', ...base });
    }
    const giveBack = (): void => {
      if (budget && ticket) void budget.meter(ticket, { usd: 0, tokens: 0 });
    };

    if (incoming && recursion) {
      const verdict = recursion.check(incoming, selfAgentId);
      if (!verdict.allowed) {
        giveBack();
        events?.emit({ type: 'rejected', stage: 'recursion', reason: reasonOf(verdict.error, 'recursion'), error: verdict.error, ...base });
        throw verdict.error;
      }
      events?.emit({ type: 'accepted', stage: 'recursion', ...base });
    }

    let admission: PolicyAdmission | undefined;
    if (policy) {
      let result: ReturnType<TaskPolicyEngine['admit']>;
      try {
        result = policy.admit({
          caller,
          skill,
          ...(input.estimatedCostUsd === undefined ? {} : { estimatedCostUsd: input.estimatedCostUsd }),
        });
      } catch (error) {
        giveBack();
        throw error;
      }
      if (!result.ok) {
        giveBack();
        events?.emit({ type: 'rejected', stage: 'policy', reason: reasonOf(result.error, 'policy'), error: result.error, ...base });
        throw result.error;
      }
      admission = result.admission;
      events?.emit({ type: 'accepted', stage: 'policy', ...base });
    }

    const context = incoming
      ? childContext(incoming, {
          receivingAgentId: selfAgentId,
          ...(input.parentTaskId === undefined ? {} : { parentTaskId: input.parentTaskId }),
        })
      : createRootContext({ rootAgentId: selfAgentId });

    // One signal for the runner: policy limits and caller cancellation.
    // One signal for the runner: policy limits and caller cancellation.
    const linked = linkAbortSignals([admission?.signal, input.signal]);
    const policySignal = admission?.signal;
    if (policySignal && policySignal !== neverAbortedSignal()) {
      policySignal.addEventListener(
        'abort',
        () => {
          const reason = policySignal.reason;
          if (A2AError.isInstance(reason)) {
            events?.emit({ type: 'aborted', stage: 'policy', reason: reasonOf(reason, 'policy'), error: reason, ...base, traceId: context.traceId });
          }
        },
        { once: true },
      );
    }

    let finished: Promise<void> | undefined;
    return {
      context,
      signal: linked.signal,
      meterTokens(tokens) {
        if (admission) admission.meterTokens(tokens);
        else if (typeof tokens !== 'number' || !Number.isFinite(tokens) || tokens < 0) {
          throw new RangeError(`expected tokens to be a finite number >= 0, got ${String(tokens)}`);
        }
      },
      finish(actual) {
        if (finished) return finished;
        linked.unlink();
        admission?.release();
        const usd = actual?.usd ?? 0;
        const tokens = actual?.tokens ?? admission?.tokensUsed ?? 0;
        spend?.record({ traceId: context.traceId, rootAgentId: context.rootAgentId, usd, tokens });
        events?.emit({ type: 'metered', traceId: context.traceId, rootAgentId: context.rootAgentId, usd, tokens });
        finished = budget && ticket ? budget.meter(ticket, { usd, tokens, traceId: context.traceId, rootAgentId: context.rootAgentId }) : Promise.resolve();
        return finished;
      },
    };
  }
}
