import {
  type BudgetLedger,
  type BudgetTicket,
  type GovernanceEvents,
  type PolicyAdmission,
  type RecursionPolicy,
  type SpendAggregator,
  type TaskContext,
  type TaskPolicyEngine,
  childContext,
  writeTaskContext,
  linkAbortSignals,
  neverAbortedSignal,
} from '@a2aplane/a2a-governance';
import { A2AError, BudgetExceededError, PolicyViolationError, type SendMessageRequest, type StreamResponse } from '@a2aplane/a2a-types';
import { NoEligiblePeerError } from './errors.js';
import type { ExecutionOutcome, Executor, RemoteExecutorFactory } from './executor.js';
import type { PeerSnapshot, TaskSpec } from './peer.js';
import type { PeerPool } from './peer-pool.js';
import type { PeerSelector } from './selectors.js';

export interface DispatcherOptions {
  /** The agent that delegates; never selected as its own peer. */
  selfAgentId: string;
  pool: PeerPool;
  selector: PeerSelector;
  remoteExecutor: RemoteExecutorFactory;
  /** Runs the task in process when no peer qualifies ("fall back to in-process", ADR-159 M3). */
  fallback?: Executor;
  budget?: BudgetLedger;
  recursion?: RecursionPolicy;
  policy?: TaskPolicyEngine;
  events?: GovernanceEvents;
  spend?: SpendAggregator;
  clock?: () => number;
}

export interface DispatchRequest {
  request: SendMessageRequest;
  task: TaskSpec;
  /** Identity the task policy is scoped by. */
  caller: string;
  /** Lineage of the delegating task (its own context, ending with `selfAgentId`). */
  context: TaskContext;
  /** Id of the delegating task; becomes `parentTaskId` of the child context. */
  parentTaskId?: string;
  /** Direct delegation to a named agent: the selector is skipped, recursion checks this agent. */
  targetAgentId?: string;
  estimatedCostUsd?: number;
  signal?: AbortSignal;
  onUpdate?: (update: StreamResponse) => void;
}

export interface DispatchResult extends ExecutionOutcome {
  executor: 'local' | 'remote';
  /** The peer that ran the task; absent when the fallback executor did. */
  peerId?: string;
  /** The child context: the lineage the delegated task runs under. */
  context: TaskContext;
}

function reasonOf(error: A2AError, fallback: string): string {
  return (error.reason === PolicyViolationError.reason ? error.metadata.field : error.metadata.limit) ?? fallback;
}

/**
 * The outbound dispatch pipeline in the fixed order of the architecture guide: (1) global budget,
 * (2) recursion, (3) peer selection, (4) task policy, (5) execution, (6) accounting. Each rejection
 * emits a `rejected` event and happens before any executor work; a rejection after the budget gate
 * still counts as one dispatch in the tasks window (its ticket is metered with zero spend).
 *
 * Recursion: with `targetAgentId` that agent is checked directly. Otherwise the depth is checked
 * first, then peers already in `context.visitedAgents` (and not allowlisted) are dropped before the
 * selector runs; when every qualifying peer was visited, the dispatch is rejected with the
 * `RecursionLimitError` of the first of them rather than `NoEligiblePeerError`, so the caller
 * learns that the call graph, not the pool, is the problem.
 *
 * Lineage: the request carries the delegating task's context at `message.metadata.ruvector.context`
 * and the executor receives the same context, because the receiving server's governor checks it and
 * appends itself; `DispatchResult.context` is the child context the delegated task runs under.
 */
export class Dispatcher {
  private readonly options: DispatcherOptions;
  private readonly clock: () => number;

  constructor(options: DispatcherOptions) {
    if (typeof options?.selfAgentId !== 'string' || options.selfAgentId === '') {
      throw new TypeError(`expected selfAgentId to be a non-empty string, got ${typeof options?.selfAgentId}`);
    }
    if (typeof options.selector?.select !== 'function') throw new TypeError(`expected selector to be a PeerSelector, got ${typeof options.selector}`);
    if (typeof options.remoteExecutor !== 'function') throw new TypeError(`expected remoteExecutor to be a function, got ${typeof options.remoteExecutor}`);
    if (typeof options.pool?.candidates !== 'function') throw new TypeError(`expected pool to be a PeerPool, got ${typeof options.pool}`);
    this.options = options;
    this.clock = options.clock ?? Date.now;
  }

  async dispatch(input: DispatchRequest): Promise<DispatchResult> {
    const { budget, recursion, policy, events, pool, selector, selfAgentId } = this.options;
    const { task, caller, context } = input;
    if (typeof task?.skillId !== 'string') throw new TypeError(`expected task.skillId to be a string, got ${typeof task?.skillId}`);
    if (typeof context?.traceId !== 'string') throw new TypeError(`expected context to be a TaskContext, got ${typeof context}`);
    const base = { caller, skill: task.skillId, traceId: context.traceId };

    // (1) Global budget, before anything else sees the task.
    let ticket: BudgetTicket | undefined;
    if (budget) {
      try {
        ticket = await budget.acquire(
          {
            traceId: context.traceId,
            rootAgentId: context.rootAgentId,
            ...(input.estimatedCostUsd === undefined ? {} : { estimatedUsd: input.estimatedCostUsd }),
            ...(task.estimatedTokens === undefined ? {} : { estimatedTokens: task.estimatedTokens }),
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
    const reject = (stage: 'recursion' | 'selector' | 'policy', error: A2AError, fallbackReason: string): never => {
      if (budget && ticket) void budget.meter(ticket, { usd: 0, tokens: 0, traceId: context.traceId, rootAgentId: context.rootAgentId });
      events?.emit({ type: 'rejected', stage, reason: reasonOf(error, fallbackReason), error, ...base });
      throw error;
    };

    // (2) Recursion, then (3) selection.
    let peer: PeerSnapshot | undefined;
    if (input.targetAgentId !== undefined) {
      const target = input.targetAgentId;
      if (recursion) {
        const verdict = recursion.check(context, target);
        if (!verdict.allowed) reject('recursion', verdict.error, 'recursion');
        events?.emit({ type: 'accepted', stage: 'recursion', ...base });
      }
      peer = target === selfAgentId ? undefined : pool.candidates(task).find((candidate) => candidate.id === target);
      if (peer === undefined) {
        reject(
          'selector',
          new NoEligiblePeerError({
            message: `agent ${target} cannot take skill ${task.skillId} (unknown, not qualified, or its breaker is open)`,
            metadata: { limit: 'target', agentId: target, skill: task.skillId },
          }),
          'target',
        );
      }
      events?.emit({ type: 'accepted', stage: 'selector', ...base });
    } else {
      let eligible = pool.candidates(task).filter((candidate) => candidate.id !== selfAgentId);
      if (recursion) {
        if (context.depth >= recursion.maxCallDepth) {
          const verdict = recursion.check(context, eligible[0]?.id ?? '*');
          if (!verdict.allowed) reject('recursion', verdict.error, 'depth');
        }
        const qualified = eligible;
        let firstRefusal: A2AError | undefined;
        eligible = qualified.filter((candidate) => {
          const verdict = recursion.check(context, candidate.id);
          if (!verdict.allowed) firstRefusal ??= verdict.error;
          return verdict.allowed;
        });
        if (eligible.length === 0 && firstRefusal !== undefined) reject('recursion', firstRefusal, 'revisit');
        events?.emit({ type: 'accepted', stage: 'recursion', ...base });
      }
      peer = eligible.length === 0 ? undefined : selector.select(task, eligible);
      if (peer === undefined && this.options.fallback === undefined) {
        reject(
          'selector',
          new NoEligiblePeerError({
            message: `no eligible peer for skill ${task.skillId}`,
            metadata: { limit: 'none', skill: task.skillId, candidates: String(eligible.length), selector: selector.name },
          }),
          'none',
        );
      }
      events?.emit({ type: 'accepted', stage: 'selector', ...base });
    }

    // (4) Task policy: after selection, before any executor work.
    let admission: PolicyAdmission | undefined;
    if (policy) {
      const result = policy.admit({
        caller,
        skill: task.skillId,
        ...(input.estimatedCostUsd === undefined ? {} : { estimatedCostUsd: input.estimatedCostUsd }),
      });
      if (!result.ok) reject('policy', result.error, 'policy');
      else admission = result.admission;
      events?.emit({ type: 'accepted', stage: 'policy', ...base });
    }

    // (5) Execution under the child context.
    const executor: Executor = peer ? this.options.remoteExecutor(peer) : this.options.fallback!;
    const receivingAgentId = peer?.id ?? selfAgentId;
    const child = childContext(context, {
      receivingAgentId,
      ...(input.parentTaskId === undefined ? {} : { parentTaskId: input.parentTaskId }),
    });
    const message = input.request.message;
    const request: SendMessageRequest = { ...input.request, message: { ...message, metadata: writeTaskContext(message.metadata, context) } };

    const linked = linkAbortSignals([input.signal, admission?.signal]);
    if (admission && admission.signal !== neverAbortedSignal()) {
      const watched = admission;
      watched.signal.addEventListener(
        'abort',
        () => {
          const reason = watched.signal.reason;
          if (A2AError.isInstance(reason)) {
            events?.emit({ type: 'aborted', stage: 'policy', reason: reasonOf(reason, 'policy'), error: reason, ...base });
          }
        },
        { once: true },
      );
    }

    if (peer) pool.recordStart(peer.id);
    const started = this.clock();
    let outcome: ExecutionOutcome | undefined;
    let failure: unknown;
    let failed = false;
    try {
      outcome = await executor.execute({
        request,
        context,
        signal: linked.signal,
        ...(input.onUpdate ? { onUpdate: input.onUpdate } : {}),
      });
    } catch (error) {
      failed = true;
      failure = error;
    }

    // (6) Accounting on every ending: success, failure, abort, throw.
    linked.unlink();
    const callerAborted = input.signal?.aborted === true;
    admission?.release();
    const usd = outcome?.usage?.usd ?? 0;
    const tokens = outcome?.usage?.tokens ?? admission?.tokensUsed ?? 0;
    if (peer) {
      if (callerAborted && failed) pool.recordCancel(peer.id);
      else {
        pool.recordOutcome(peer.id, {
          ok: !failed,
          latencyMs: Math.max(0, this.clock() - started),
          ...(outcome?.usage?.usd === undefined ? {} : { costUsd: outcome.usage.usd }),
        });
      }
    }
    this.options.spend?.record({ traceId: child.traceId, rootAgentId: child.rootAgentId, usd, tokens });
    events?.emit({ type: 'metered', traceId: child.traceId, rootAgentId: child.rootAgentId, usd, tokens });
    if (budget && ticket) await budget.meter(ticket, { usd, tokens, traceId: child.traceId, rootAgentId: child.rootAgentId });

    if (failed) throw failure;
    return {
      ...outcome!,
      executor: executor.kind,
      ...(peer ? { peerId: peer.id } : {}),
      context: child,
    };
  }
}
