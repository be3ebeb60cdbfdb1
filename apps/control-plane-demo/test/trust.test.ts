import { describe, expect, it } from 'vitest';
import { createControlPlane } from '../src/control-plane.js';
import { runTrust } from '../src/scenarios/trust.js';

describe('trust allowlist (issue 16): an unlisted agent is refused', () => {
  it('serves the enrolled agent, refuses the unlisted one (FORBIDDEN) and an anonymous caller (UNAUTHENTICATED) before its executor', async () => {
    const result = await runTrust(await createControlPlane());
    expect(result.calls.map((call) => `${call.caller}:${call.outcome}`)).toEqual([
      'enrolled:TASK_STATE_COMPLETED',
      'unlisted:FORBIDDEN',
      'anonymous:UNAUTHENTICATED',
    ]);
    expect(result.executions).toBe(1);
    expect(result.agents).toHaveLength(3);
    for (const agent of result.agents) expect(agent.card).toBe('valid');
    expect(result.calls[1]!.agentId).toMatch(/^[0-9a-f]{64}$/);
    expect(result.passed).toBe(true);
  });
});
