import { PolicyViolationError } from '@a2aplane/a2a-types';

export type PolicyField = 'allowedSkills' | 'maxConcurrency' | 'maxCostUsd' | 'maxTokens' | 'maxDurationMs';

/** A `PolicyViolationError` naming the policy field it broke (`metadata.field`). */
export function violation(field: PolicyField, message: string, metadata: Record<string, string>): PolicyViolationError {
  return new PolicyViolationError({ message, metadata: { field, ...metadata } });
}

/** The refusal of a skill outside the caller's `allowedSkills`. */
export function skillRefusal(caller: string, skill: string): { ok: false; error: PolicyViolationError } {
  return {
    ok: false,
    error: violation('allowedSkills', `skill ${skill} is not in the allowed set for caller ${caller}`, { caller, skill }),
  };
}

/** The refusal of a full (caller, skill) concurrency bucket: `active` slots held, `limit` allowed. */
export function concurrencyRefusal(
  caller: string,
  skill: string,
  limit: number,
  active: number,
): { ok: false; error: PolicyViolationError } {
  return {
    ok: false,
    error: violation('maxConcurrency', `concurrency bucket full: ${caller}/${skill}`, {
      caller,
      skill,
      limit: String(limit),
      actual: String(active + 1),
    }),
  };
}
