import { type Candidate, type DispatchRun, eventBase, isPromiseLike, reasonOf } from './dispatch-run.js';
import type { GovernanceEvents } from './events.js';
import type { Gate, GateVerdict } from './gates.js';

/**
 * Runs `gates` in order from `from` (a small runner in the manner of hono's `compose`): each gate
 * gets a stage start, then an `accepted` or `rejected` event and a stage finish, or a finish with
 * decision `error` when it throws. The first refusal throws its error. Synchronous while every
 * gate answers synchronously; the first gate that answers with a promise makes the rest run
 * after it, and the runner returns that promise. Giving back what the gates acquired is the
 * caller's part (`DispatchRun.giveBack`), on whatever exit.
 */
export function runGates(
  gates: readonly Gate[],
  run: DispatchRun<Candidate>,
  events: GovernanceEvents | undefined,
  from = 0,
): Promise<void> | undefined {
  const { trace } = run;
  for (let index = from; index < gates.length; index++) {
    const gate = gates[index] as Gate;
    if (!gate.applies(run)) continue;
    trace?.start(gate.stage);
    let verdict: GateVerdict | PromiseLike<GateVerdict>;
    try {
      verdict = gate.run(run);
    } catch (error) {
      trace?.finish(gate.stage, 'error', 'error', error);
      throw error;
    }
    if (isPromiseLike(verdict)) {
      return Promise.resolve(verdict).then(
        (settled) => {
          decide(gate, run, events, settled);
          return runGates(gates, run, events, index + 1);
        },
        (error: unknown) => {
          trace?.finish(gate.stage, 'error', 'error', error);
          throw error;
        },
      );
    }
    decide(gate, run, events, verdict);
  }
  return undefined;
}

/** Reports a gate's verdict (event and stage finish); throws its refusal. */
function decide(gate: Gate, run: DispatchRun<Candidate>, events: GovernanceEvents | undefined, verdict: GateVerdict): void {
  const { stage } = gate;
  const { trace } = run;
  if (verdict === undefined) {
    events?.emit({ type: 'accepted', stage, ...eventBase(run.input) });
    trace?.finish(stage, 'accepted');
    return;
  }
  const { error } = verdict;
  if (events !== undefined || trace !== undefined) {
    const reason = reasonOf(error, verdict.fallback);
    events?.emit({ type: 'rejected', stage, reason, error, ...eventBase(run.input) });
    trace?.finish(stage, 'rejected', reason, error);
  }
  throw error;
}
