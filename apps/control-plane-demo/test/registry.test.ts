import { describe, expect, it } from 'vitest';
import { createControlPlane } from '../src/control-plane.js';
import { runRegistry } from '../src/scenarios/registry.js';

describe('scenario 5: the registry', () => {
  it('agents enroll at start, the delegator finds its peers by skill, a revoked agent is refused at every server and leaves the pool', async () => {
    const result = await runRegistry(await createControlPlane());
    expect(result).toMatchObject({
      enrolled: 3,
      health: { delegator: 'up', 'worker-a': 'up', 'worker-b': 'up' },
      peersBySkill: ['worker-a', 'worker-b'],
      revokedCalls: { before: 'TASK_STATE_COMPLETED', after: { delegator: 'UNAUTHENTICATED', 'worker-b': 'UNAUTHENTICATED' } },
      droppedFromPool: true,
      cardRefused: true,
      delegatedTo: { after: 'worker-b' },
    });
    expect(['worker-a', 'worker-b']).toContain(result.delegatedTo.before);
    expect(result.passed).toBe(true);
  });
});
