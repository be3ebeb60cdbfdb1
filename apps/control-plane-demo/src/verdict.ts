/**
 * The three acceptance tests of ADR-159, the trust check (issue 16), the registry (issue 34), OpenID
 * Connect (issue 37) and MCP inside a delegation (issue 40), in the order the demo runs them.
 */
export const SCENARIO_NAMES = [
  'remoteEqualsLocal',
  'constantSizeHandOff',
  'boundedRecursion',
  'trustAllowlist',
  'registry',
  'openIdConnect',
  'mcpDelegation',
] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

/** Process exit codes of `pnpm demo`. */
export const DEMO_EXIT_CODES = { passed: 0, failed: 1, interrupted: 130 } as const;

export interface ScenarioOutcome {
  name: ScenarioName;
  passed: boolean;
  /** Why it did not pass: the error it threw, or that it never ran. */
  error?: string;
}

export interface Verdict {
  passed: boolean;
  exitCode: number;
  outcomes: ScenarioOutcome[];
}

/**
 * Decides the demo's verdict from what each scenario returned. A scenario passes only when it
 * returned a result whose `passed` is exactly `true`; a scenario that threw, returned anything
 * else or never ran fails. Any failure exits 1; an interrupted run exits 130 and never passes.
 */
export function judge(scenarios: Partial<Record<ScenarioName, unknown>>, interrupted = false): Verdict {
  const outcomes = SCENARIO_NAMES.map((name): ScenarioOutcome => {
    const result = scenarios[name];
    if (result === undefined) return { name, passed: false, error: interrupted ? 'interrupted' : 'did not run' };
    if (typeof result !== 'object' || result === null) return { name, passed: false, error: 'no result' };
    if ('error' in result && typeof result.error === 'string') return { name, passed: false, error: result.error };
    return { name, passed: 'passed' in result && result.passed === true };
  });
  const passed = !interrupted && outcomes.every((outcome) => outcome.passed);
  const exitCode = interrupted ? DEMO_EXIT_CODES.interrupted : passed ? DEMO_EXIT_CODES.passed : DEMO_EXIT_CODES.failed;
  return { passed, exitCode, outcomes };
}
