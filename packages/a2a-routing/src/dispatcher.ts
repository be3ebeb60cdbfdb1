import {
  type BudgetLedger,
  type GovernanceEvents,
  type GovernanceHooks,
  type GovernedTask,
  type GovernedTaskInput,
  type Governor,
  type GovernorOptions,
  type RecursionPolicy,
  type SpendAggregator,
  type TaskContext,
  type TaskPolicyEngine,
  writeTaskContext,
  createGovernor,
} from '@a2aplane/a2a-governance';
import type { SendMessageRequest, StreamResponse } from '@a2aplane/a2a-types';
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
  /**
   * The gates, as one `Governor` whose `selfAgentId` is this one's. Either this or the gates one
   * by one below (the dispatcher then makes the Governor), never both: a gate passed beside a
   * governor would silently not run.
   */
  governor?: Governor;
  budget?: BudgetLedger;
  recursion?: RecursionPolicy;
  policy?: TaskPolicyEngine;
  events?: GovernanceEvents;
  spend?: SpendAggregator;
  /** Stage start/finish hooks of the Governor the dispatcher makes. */
  hooks?: GovernanceHooks;
  /** The Governor's `estimateCost`: a task's cost when `dispatch` is given no `estimatedCostUsd`. */
  estimateCost?: GovernorOptions['estimateCost'];
  /** The Governor's `allowUnestimatedUsd`: a USD-capped `budget` with no `estimateCost` (see the Governor). */
  allowUnestimatedUsd?: boolean;
  clock?: () => number;
}

const GATE_OPTIONS = ['budget', 'recursion', 'policy', 'events', 'spend', 'hooks', 'estimateCost', 'allowUnestimatedUsd'] as const;

/** Usage a peer reported, when it is a usable amount; otherwise the governor falls back to what it metered. */
function amount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

export interface DispatchRequest {
  request: SendMessageRequest;
  task: TaskSpec;
  /** Identity the task policy is scoped by. */
  caller: string;
  /** Lineage of the delegating task (its own context, ending with `selfAgentId`). */
  context: TaskContext;
  /** Id of the delegating task; sent as the lineage's `parentTaskId`, so it becomes that of the child context. */
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

/**
 * The outbound dispatch pipeline in the fixed order of the architecture guide, run by a
 * `Governor` (the same one a server runs inbound): (1) global budget, (2) recursion, (3) peer
 * selection, (4) task policy, then (5) execution and (6) accounting. Each rejection emits a
 * `rejected` event and happens before any executor work; a rejection after the budget gate still
 * counts as one dispatch in the tasks window (its ticket is metered with zero spend). A throw at
 * any stage (a malformed context, a selector or pool bug) gives the budget ticket and the policy
 * slot back before `dispatch` rejects.
 *
 * Recursion: with `targetAgentId` that agent is checked directly. Otherwise the depth is checked
 * first, then peers already in `context.visitedAgents` (and not allowlisted) are dropped before the
 * selector runs; when every qualifying peer was visited, the dispatch is rejected with the
 * `RecursionLimitError` of the first of them rather than `NoEligiblePeerError`, so the caller
 * learns that the call graph, not the pool, is the problem.
 *
 * Lineage: the request carries the delegating task's context at `message.metadata.ruvector.context`
 * (with `parentTaskId` set to the request's, when given) and the executor receives the same context,
 * because the receiving server's governor checks it and appends itself, keeping the parent task id;
 * `DispatchResult.context` is the child context the delegated task runs under.
 */
export class Dispatcher {
  private readonly options: DispatcherOptions;
  private readonly clock: () => number;
  private readonly governor: Governor;

  constructor(options: DispatcherOptions) {
    if (typeof options?.selfAgentId !== 'string' || options.selfAgentId === '') {
      throw new TypeError(`expected selfAgentId to be a non-empty string, got ${typeof options?.selfAgentId}`);
    }
    if (typeof options.selector?.select !== 'function')
      throw new TypeError(`expected selector to be a PeerSelector, got ${typeof options.selector}`);
    if (typeof options.remoteExecutor !== 'function')
      throw new TypeError(`expected remoteExecutor to be a function, got ${typeof options.remoteExecutor}`);
    if (typeof options.pool?.candidates !== 'function') throw new TypeError(`expected pool to be a PeerPool, got ${typeof options.pool}`);
    if (options.governor !== undefined) {
      // Structural, not instanceof: a bundle may carry its own copy of a2a-governance.
      if (typeof options.governor?.admit !== 'function')
        throw new TypeError(`expected governor to be a Governor, got ${typeof options.governor}`);
      const beside = GATE_OPTIONS.filter((name) => options[name] !== undefined);
      if (beside.length > 0) throw new TypeError(`expected the gates on the governor, got ${beside.join(', ')} beside it`);
      if (options.governor.selfAgentId !== options.selfAgentId) {
        throw new TypeError(`expected the governor of ${options.selfAgentId}, got the governor of ${options.governor.selfAgentId}`);
      }
    }
    this.options = options;
    this.clock = options.clock ?? Date.now;
    this.governor =
      options.governor ??
      createGovernor({
        selfAgentId: options.selfAgentId,
        ...(options.budget ? { budget: options.budget } : {}),
        ...(options.recursion ? { recursion: options.recursion } : {}),
        ...(options.policy ? { policy: options.policy } : {}),
        ...(options.events ? { events: options.events } : {}),
        ...(options.spend ? { spend: options.spend } : {}),
        ...(options.hooks ? { hooks: options.hooks } : {}),
        ...(options.estimateCost ? { estimateCost: options.estimateCost } : {}),
        ...(options.allowUnestimatedUsd === undefined ? {} : { allowUnestimatedUsd: options.allowUnestimatedUsd }),
      });
  }

  /** The gates (1)-(4): the Governor with a route over the pool. Resolves the admitted task and the peer (none: the fallback runs it). */
  private async admit(input: DispatchRequest): Promise<{ governed: GovernedTask; peer: PeerSnapshot | undefined }> {
    const { pool, selector, selfAgentId } = this.options;
    const { task, context } = input;
    const gated: GovernedTaskInput = { caller: input.caller, skill: task.skillId, incoming: context };
    if (input.parentTaskId !== undefined) gated.parentTaskId = input.parentTaskId;
    if (input.estimatedCostUsd !== undefined) gated.estimatedCostUsd = input.estimatedCostUsd;
    if (task.estimatedTokens !== undefined) gated.estimatedTokens = task.estimatedTokens;
    if (input.signal !== undefined) gated.signal = input.signal;
    let peer: PeerSnapshot | undefined;
    const target = input.targetAgentId;
    if (target !== undefined) {
      gated.route = {
        candidates: [{ id: target }],
        select: (eligible) => {
          peer =
            target === selfAgentId || eligible.length === 0
              ? undefined
              : pool.candidates(task).find((candidate) => candidate.id === target);
          if (peer === undefined) {
            throw new NoEligiblePeerError({
              message: `agent ${target} cannot take skill ${task.skillId} (unknown, not qualified, or its breaker is open)`,
              metadata: { limit: 'target', agentId: target, skill: task.skillId },
            });
          }
          return peer;
        },
      };
    } else {
      const fallback = this.options.fallback;
      gated.route = {
        // Read after the budget gate: nothing looks at the pool for a task the budget refuses.
        get candidates() {
          return pool.candidates(task).filter((candidate) => candidate.id !== selfAgentId);
        },
        select: (eligible) => {
          peer = eligible.length === 0 ? undefined : selector.select(task, eligible as readonly PeerSnapshot[]);
          if (peer === undefined && fallback === undefined) {
            throw new NoEligiblePeerError({
              message: `no eligible peer for skill ${task.skillId}`,
              metadata: { limit: 'none', skill: task.skillId, candidates: String(eligible.length), selector: selector.name },
            });
          }
          return peer;
        },
      };
    }
    const governed = await this.governor.admit(gated);
    return { governed, peer };
  }

  async dispatch(input: DispatchRequest): Promise<DispatchResult> {
    const { pool } = this.options;
    const { task, context } = input;
    if (typeof task?.skillId !== 'string') throw new TypeError(`expected task.skillId to be a string, got ${typeof task?.skillId}`);
    if (typeof context?.traceId !== 'string') throw new TypeError(`expected context to be a TaskContext, got ${typeof context}`);

    // (1)-(4) Budget, recursion, selection, policy.
    const { governed, peer } = await this.admit(input);
    const child = governed.context;

    // (5) Execution: the request carries the delegating context; the receiver appends itself.
    if (peer) pool.recordStart(peer.id);
    const started = this.clock();
    let kind: Executor['kind'] = peer ? 'remote' : 'local';
    let outcome: ExecutionOutcome | undefined;
    let failure: unknown;
    let failed = false;
    try {
      const executor: Executor = peer ? this.options.remoteExecutor(peer) : this.options.fallback!;
      kind = executor.kind;
      // The wire names the delegating task: the receiver's child context (and its spans) keep it as parent.
      const sent = input.parentTaskId === undefined ? context : { ...context, parentTaskId: input.parentTaskId };
      const message = input.request.message;
      const request: SendMessageRequest = {
        ...input.request,
        message: { ...message, metadata: writeTaskContext(message.metadata, sent) },
      };
      outcome = await executor.execute({
        request,
        context: sent,
        signal: governed.signal,
        ...(input.onUpdate ? { onUpdate: input.onUpdate } : {}),
      });
    } catch (error) {
      failed = true;
      failure = error;
    }

    // (6) Accounting on every ending: success, failure, abort, throw.
    const callerAborted = input.signal?.aborted === true;
    const usd = amount(outcome?.usage?.usd);
    const tokens = amount(outcome?.usage?.tokens);
    if (peer) {
      if (callerAborted && failed) pool.recordCancel(peer.id);
      else {
        pool.recordOutcome(peer.id, {
          ok: !failed,
          latencyMs: Math.max(0, this.clock() - started),
          ...(usd === undefined ? {} : { costUsd: usd }),
        });
      }
    }
    await governed.finish(tokens === undefined ? { usd: usd ?? 0 } : { usd: usd ?? 0, tokens });

    if (failed) throw failure;
    return {
      ...outcome!,
      executor: kind,
      ...(peer ? { peerId: peer.id } : {}),
      context: child,
    };
  }
}

/** Makes the outbound dispatch pipeline; see `Dispatcher`. */
export function createDispatcher(options: DispatcherOptions): Dispatcher {
  return new Dispatcher(options);
}
