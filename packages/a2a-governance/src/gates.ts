import { A2AError, BudgetExceededError } from '@a2aplane/a2a-types';
import type { CallAuthorization } from './authorization.js';
import { budgetRequest, type Candidate, type DispatchRun, isPromiseLike } from './dispatch-run.js';
import type { GovernanceStage } from './events.js';
import type { GovernorOptions } from './governor-types.js';
import type { PolicyAdmitResult } from './task-policy.js';

/** A gate's refusal: the error `admit` rejects with, and the event reason when the error names none. */
interface GateRefusal {
  readonly error: A2AError;
  readonly fallback: string;
}

/** `undefined`: the gate accepted the task. */
export type GateVerdict = GateRefusal | undefined;

/**
 * One gate of the dispatch pipeline. `run` accepts, refuses, or throws (a bug, a malformed
 * input); it answers synchronously when it can and with a promise when its seam is shared. What it
 * acquires it records on the run, where the runner gives it back on any exit.
 */
export interface Gate {
  /** The stage its events and hooks name. */
  readonly stage: GovernanceStage;
  /** Whether the gate has anything to decide for this dispatch (when not, it emits nothing). */
  applies(run: DispatchRun<Candidate>): boolean;
  run(run: DispatchRun<Candidate>): GateVerdict | PromiseLike<GateVerdict>;
}

const refuse = (error: A2AError, fallback: string): GateRefusal => ({ error, fallback });

/** Call authorization: the trust allowlist and skill rules. */
function authorizeGate(options: GovernorOptions): Gate | undefined {
  const { authorize } = options;
  if (authorize === undefined) return undefined;
  const verdictOf = (verdict: CallAuthorization): GateVerdict => (verdict.allowed ? undefined : refuse(verdict.error, 'authorize'));
  return {
    stage: 'authorize',
    applies: () => true,
    run(run) {
      const verdict = authorize.authorize(run.input);
      return isPromiseLike(verdict) ? Promise.resolve(verdict).then(verdictOf) : verdictOf(verdict);
    },
  };
}

/**
 * The global budget. The fast path: an in-process ledger's `tryAcquire` grants at once; a refusal,
 * a queued wait, an aborted signal or a shared ledger goes through `acquire`.
 */
function budgetGate(options: GovernorOptions): Gate | undefined {
  const { budget } = options;
  if (budget === undefined) return undefined;
  return {
    stage: 'budget',
    applies: () => true,
    run(run) {
      const { input } = run;
      if (budget.tryAcquire !== undefined && !input.signal?.aborted) {
        const ticket = budget.tryAcquire(budgetRequest(input));
        if (ticket !== undefined) {
          run.ticket = ticket;
          return undefined;
        }
      }
      return budget.acquire(budgetRequest(input), input.signal).then(
        (ticket): GateVerdict => {
          run.ticket = ticket;
          return undefined;
        },
        (error: unknown): GateVerdict => {
          if (BudgetExceededError.isInstance(error)) return refuse(error, 'budget');
          throw error;
        },
      );
    },
  };
}

/**
 * Recursion. Inbound: may this agent join the incoming lineage? Outbound (with a route): the depth
 * is checked first, then candidates already in the lineage (and not allowlisted) are dropped. When
 * every candidate was visited, the refusal is the `RecursionLimitError` of the first of them rather
 * than the selector's, so the caller learns that the call graph, not the pool, is the problem.
 */
function recursionGate(options: GovernorOptions): Gate | undefined {
  const { recursion, selfAgentId } = options;
  if (recursion === undefined) return undefined;
  return {
    stage: 'recursion',
    applies: (run) => run.input.incoming !== undefined,
    run(run) {
      const { incoming, route } = run.input;
      if (incoming === undefined) return undefined;
      if (route === undefined) {
        const verdict = recursion.check(incoming, selfAgentId);
        return verdict.allowed ? undefined : refuse(verdict.error, 'recursion');
      }
      const { candidates } = route;
      if (incoming.depth >= recursion.maxCallDepth) {
        const verdict = recursion.check(incoming, candidates[0]?.id ?? '*');
        if (!verdict.allowed) return refuse(verdict.error, 'depth');
      }
      let firstRefusal: A2AError | undefined;
      const eligible = candidates.filter((candidate) => {
        const verdict = recursion.check(incoming, candidate.id);
        if (!verdict.allowed) firstRefusal ??= verdict.error;
        return verdict.allowed;
      });
      run.eligible = eligible;
      return eligible.length === 0 && firstRefusal !== undefined ? refuse(firstRefusal, 'revisit') : undefined;
    },
  };
}

/** Outbound: the route's selector picks the receiver among the eligible candidates. */
const routeGate: Gate = {
  stage: 'selector',
  applies: (run) => run.input.route !== undefined,
  run(run) {
    const { route } = run.input;
    if (route === undefined) return undefined;
    try {
      run.receiver = route.select(run.eligible ?? route.candidates);
    } catch (error) {
      if (A2AError.isInstance(error)) return refuse(error, 'selector');
      throw error;
    }
    return undefined;
  },
};

/** The caller's task policy: allowed skills, estimated cost, and a concurrency slot. */
function policyGate(options: GovernorOptions): Gate | undefined {
  const { policy } = options;
  if (policy === undefined) return undefined;
  const verdictOf = (run: DispatchRun<Candidate>, result: PolicyAdmitResult): GateVerdict => {
    if (!result.ok) return refuse(result.error, 'policy');
    run.admission = result.admission;
    return undefined;
  };
  return {
    stage: 'policy',
    applies: () => true,
    run(run) {
      const { input } = run;
      const result = policy.admitAsync(
        input.estimatedCostUsd === undefined
          ? { caller: input.caller, skill: input.skill }
          : { caller: input.caller, skill: input.skill, estimatedCostUsd: input.estimatedCostUsd },
      );
      return isPromiseLike(result) ? Promise.resolve(result).then((settled) => verdictOf(run, settled)) : verdictOf(run, result);
    },
  };
}

/** The pipeline of ARCHITECTURE's dispatch diagram, in order: authorize, budget, recursion, route, policy. */
export function createGates(options: GovernorOptions): readonly Gate[] {
  return [authorizeGate(options), budgetGate(options), recursionGate(options), routeGate, policyGate(options)].filter(
    (gate): gate is Gate => gate !== undefined,
  );
}
