import { createRootContext } from '@a2aplane/a2a-governance';
import { IncompatiblePeerError, createPeerPool } from '@a2aplane/a2a-routing';
import { artifactVersionNegotiator, readArtifactKindVersions, readMemoryParams } from '@a2aplane/a2a-rulake-artifacts';
import { afterEach, describe, expect, it } from 'vitest';
import { type HostedAgent, hostAgent } from '../src/agent-host.js';
import { createWorkerExecutor } from '../src/agents/worker.js';
import { createControlPlane, createDispatcher, discoverPeers } from '../src/control-plane.js';

const agents: HostedAgent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.close()));
});

const WORK = { id: 'work', name: 'Work', description: 'w', tags: [] };

async function host(name: string, extra: Partial<Parameters<typeof hostAgent>[0]> = {}): Promise<HostedAgent> {
  const agent = await hostAgent({ name, skill: WORK, executor: () => createWorkerExecutor(), ...extra });
  agents.push(agent);
  return agent;
}

describe('version negotiation on discovery', () => {
  it('signed cards advertise the artifact versions and memory tier; the dispatcher pool agrees on a version', async () => {
    const self = await host('self');
    const worker = await host('worker', { memory: { shard: 'file:///tmp/tier/', capabilities: ['read'] } });
    const peers = await discoverPeers([self, worker]);
    const card = peers.get(worker.agentId)!.card;
    expect(readArtifactKindVersions(card)).toEqual(['1']);
    expect(readMemoryParams(card)).toEqual({
      type: 'rvlake',
      shard: 'file:///tmp/tier/',
      capabilities: ['read'],
      witness_format_version: 1,
    });
    expect(readMemoryParams(peers.get(self.agentId)!.card)).toBeUndefined();

    const pool = createPeerPool({ negotiate: artifactVersionNegotiator() });
    pool.upsert(worker.agentId, card);
    expect(pool.candidates({ skillId: 'work' })[0]?.terms).toEqual({ artifactKindVersion: '1' });

    const dispatcher = createDispatcher(await createControlPlane(), self, peers);
    const result = await dispatcher.dispatch({
      request: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hello' }] } },
      task: { skillId: 'work' },
      caller: self.agentId,
      context: createRootContext({ rootAgentId: self.agentId }),
    });
    expect(result.peerId).toBe(worker.agentId);
  });

  it('a peer that speaks no common artifact version is refused on discovery with IncompatiblePeerError', async () => {
    const self = await host('self');
    const future = await host('future', { artifactKindVersions: ['2'] });
    const peers = await discoverPeers([self, future]);
    let error: unknown;
    try {
      createDispatcher(await createControlPlane(), self, peers);
    } catch (caught) {
      error = caught;
    }
    expect(IncompatiblePeerError.isInstance(error)).toBe(true);
    expect((error as IncompatiblePeerError).metadata).toMatchObject({ local: '1', remote: '2', agentId: future.agentId });
  });
});
