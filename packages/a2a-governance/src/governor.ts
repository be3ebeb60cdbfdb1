import { checkAmount } from './amounts.js';
import { type BudgetCaps, createAdmittedTask } from './admitted-task.js';
import { readTaskContext } from './context.js';
import { type Candidate, DispatchRun } from './dispatch-run.js';
import { runGates } from './gate-runner.js';
import { createGates, type Gate } from './gates.js';
import { GovernorOptionsError } from './governor-options-error.js';
import type { GovernedTask, GovernedTaskInput, GovernorOptions } from './governor-types.js';
import { checkHooks, type GovernanceHooks, hooksEnabled, StageTrace } from './hooks.js';

export type { BudgetCut, GovernedRoute, GovernedTask, GovernedTaskInput, GovernorOptions } from './governor-types.js';

/**
 * The one governance pipeline (ARCHITECTURE "dispatch pipeline"), run inbound by a server after it
 * authenticated the caller and outbound by the routing `Dispatcher`. Made by `createGovernor`.
 */
export interface Governor {
  /** The agent this governor guards. */
  readonly selfAgentId: string;
  /**
   * Reads the sender's lineage from `message.metadata` (a server calls it on every SendMessage, so
   * a `Governor` is the whole governance plug-in). Never throws: a malformed context is an error.
   */
  readTaskContext(metadata: Record<string, unknown> | undefined): ReturnType<typeof readTaskContext>;
  /**
   * Rejects with `UnauthenticatedError` or `ForbiddenError` (authorize), `BudgetExceededError`,
   * `RecursionLimitError`, an outbound route's refusal, or `PolicyViolationError` (or the signal's reason).
   */
  admit<T extends Candidate = Candidate>(input: GovernedTaskInput<T>): Promise<GovernedTask<T>>;
}

/**
 * The pipeline is data: the gates authorize -> budget -> recursion -> [selector] -> policy (see
 * `createGates`), run in that order by one runner (`runGates`) that stops at the first rejection
 * and emits an event (and, with `hooks`, a start and a finish) per stage. A task rejected after the
 * budget gate still counts as one dispatch in the tasks-per-minute window (its ticket is metered
 * with zero spend). Whatever a later gate does — refuse or throw — the budget ticket and the
 * policy slot are given back before `admit` rejects.
 *
 * When the ledger offers `tryAcquire` (the in-memory one does), the authorizer answers
 * synchronously, the ledger grants at once and the policy's slots are in process, the whole
 * admission is decided synchronously and `admit` returns an already-settled promise; a refusal, a
 * queued wait or an aborted signal takes the `acquire` path with the same outcome and events.
 * Shared backends (a ledger without `tryAcquire`, async `ConcurrencySlots`) are awaited.
 */
export function createGovernor(options: GovernorOptions): Governor {
  return new GovernorPipeline(options);
}

class GovernorPipeline implements Governor {
  private readonly options: GovernorOptions;
  private readonly hooks: GovernanceHooks | undefined;
  private readonly gates: readonly Gate[];
  /** Whether the ledger caps USD or tokens (then a task's spend past its reservation is checked mid-task). */
  private readonly budgetCaps: BudgetCaps;

  constructor(options: GovernorOptions) {
    if (typeof options?.selfAgentId !== 'string' || options.selfAgentId === '') {
      throw new TypeError(`expected selfAgentId to be a non-empty string, got ${typeof options?.selfAgentId}`);
    }
    if (options.authorize !== undefined && typeof options.authorize?.authorize !== 'function') {
      throw new TypeError(`expected authorize to be a CallAuthorizer, got ${typeof options.authorize}`);
    }
    checkHooks(options.hooks);
    checkUsdEstimates(options);
    this.options = options;
    const limits = options.budget?.reserveMore === undefined ? undefined : options.budget.snapshot().limits;
    this.budgetCaps = { usd: limits?.usd !== undefined, tokens: limits?.tokens !== undefined };
    this.hooks = options.hooks === undefined || (!options.hooks.onStageStart && !options.hooks.onStageFinish) ? undefined : options.hooks;
    this.gates = createGates(options);
  }

  get selfAgentId(): string {
    return this.options.selfAgentId;
  }

  readTaskContext(metadata: Record<string, unknown> | undefined): ReturnType<typeof readTaskContext> {
    return readTaskContext(metadata);
  }

  admit<T extends Candidate = Candidate>(input: GovernedTaskInput<T>): Promise<GovernedTask<T>> {
    let run: DispatchRun<T> | undefined;
    try {
      if (input.route !== undefined && input.incoming === undefined) {
        throw new TypeError("expected incoming (the delegating task's context) with route, got undefined");
      }
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
      const started = new DispatchRun<T>(input, trace);
      run = started;
      const pending = runGates(this.gates, started, this.options.events);
      if (pending === undefined) return Promise.resolve(this.admitted(started));
      return pending.then(
        () => this.admitted(started),
        (error: unknown) => {
          started.giveBack(this.options.budget);
          throw error;
        },
      );
    } catch (error) {
      run?.giveBack(this.options.budget);
      return Promise.reject(error);
    }
  }

  /** The task of a run that passed every gate; what the gates acquired is given back if making it fails. */
  private admitted<T extends Candidate>(run: DispatchRun<T>): GovernedTask<T> {
    try {
      return createAdmittedTask(this.options, this.budgetCaps, run);
    } catch (error) {
      run.giveBack(this.options.budget);
      throw error;
    }
  }
}

/**
 * A USD cap is enforced through reservations, and a task without an estimate reserves nothing: with
 * no `estimateCost`, 40 concurrent tasks once metered $0.40 against a $0.10 cap and nothing warned.
 * So that configuration is refused at start unless `allowUnestimatedUsd` says it is meant.
 */
function checkUsdEstimates(options: GovernorOptions): void {
  const { budget, estimateCost, allowUnestimatedUsd } = options;
  if (allowUnestimatedUsd !== undefined && typeof allowUnestimatedUsd !== 'boolean') {
    throw new TypeError(`expected allowUnestimatedUsd to be a boolean, got ${typeof allowUnestimatedUsd}`);
  }
  if (budget === undefined || estimateCost !== undefined || allowUnestimatedUsd === true) return;
  if (budget.snapshot().limits.usd === undefined) return;
  throw new GovernorOptionsError(
    'estimateCost',
    'the budget caps USD but there is no estimateCost: tasks would reserve nothing and could overshoot the cap. ' +
      'Pass estimateCost (a config [cost] block with default_usd), or allowUnestimatedUsd: true if every admit passes estimatedCostUsd',
  );
}

/** @deprecated use `createGovernor` (the class stays for one minor release). */
export const Governor: new (options: GovernorOptions) => Governor = GovernorPipeline;
