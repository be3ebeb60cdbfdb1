import { createRootContext } from '@a2aplane/a2a-governance';
import { agentIdFromPublicKey, generateKeyPair, type KeyPair, readRequestSignatureAlgs } from '@a2aplane/a2a-identity';
import { A2AError } from '@a2aplane/a2a-types';
import { afterEach, describe, expect, it } from 'vitest';
import { type HostedAgent, hostAgent } from '../src/agent-host.js';
import { createWorkerExecutor } from '../src/agents/worker.js';
import {
  connectTo,
  countSignedCalls,
  createControlPlane,
  createDispatcher,
  createKeyDirectory,
  type DiscoveredPeer,
  discoverPeers,
} from '../src/control-plane.js';

const agents: HostedAgent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.close()));
});

const WORK = { id: 'work', name: 'Work', description: 'w', tags: [] };
const keys = createKeyDirectory(['caller', 'callee']);

async function host(name: string): Promise<HostedAgent> {
  const plane = await createControlPlane();
  const agent = await hostAgent({
    name,
    key: keys.keyOf(name),
    callerKeys: keys.publicKeys,
    skill: WORK,
    governor: (agentId) => plane.governorFor(agentId),
    executor: () => createWorkerExecutor(),
  });
  agents.push(agent);
  return agent;
}

const hello = () => ({
  message: {
    messageId: globalThis.crypto.randomUUID(),
    role: 'ROLE_USER' as const,
    parts: [{ text: 'hello' }],
    metadata: { skillId: 'work' },
  },
});

async function reasonOfCall(peer: DiscoveredPeer, as?: KeyPair): Promise<string> {
  try {
    const response = await connectTo({ ...peer, clientOptions: { ...peer.clientOptions, retry: { retries: 0 } } }, as).sendMessage(hello());
    return response.task?.status.state ?? 'message';
  } catch (error) {
    return A2AError.isInstance(error) ? error.reason : String(error);
  }
}

describe('signed requests between demo agents (RFC 9421)', () => {
  it("every demo agent's card advertises the fast path it verifies, and discovery hands callers the key that signed the card", async () => {
    const callee = await host('callee');
    const peer = (await discoverPeers([callee])).get(callee.agentId)!;
    expect(readRequestSignatureAlgs(peer.card)).toEqual(['ed25519', 'hmac-sha256']);
    expect(peer.cardVerification).toMatchObject({ status: 'valid', agentId: callee.agentId });
    // A client made without what discovery verified signs Ed25519: the fast path needs a verified card.
    await connectTo({ clientOptions: peer.clientOptions }, keys.demo).sendMessage(hello());
    await connectTo(peer, keys.demo).sendMessage(hello());
    expect(callee.served.map((call) => call.alg)).toEqual(['ed25519', 'hmac-sha256']);
  });

  it("an agent's dispatcher signs with its key: the callee's server-side principal is the caller's verified AgentID", async () => {
    const caller = await host('caller');
    const callee = await host('callee');
    const peers = await discoverPeers(agents, { as: keys.demo });
    const dispatcher = createDispatcher(await createControlPlane(), caller, peers);
    const result = await dispatcher.dispatch({
      request: hello(),
      task: { skillId: 'work' },
      caller: caller.agentId,
      context: createRootContext({ rootAgentId: caller.agentId }),
    });
    expect(result.peerId).toBe(callee.agentId);
    expect(result.final.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(callee.served).toEqual([{ verifiedAgentId: caller.agentId, lineageCaller: caller.agentId, alg: 'hmac-sha256' }]);
    // The demo's own requests are signed too, as the demo's AgentID (a root task: no lineage caller).
    await peers.get(caller.agentId)!.client.sendMessage(hello());
    expect(caller.served).toEqual([{ verifiedAgentId: keys.demoAgentId, alg: 'hmac-sha256' }]);
    expect(countSignedCalls(agents, keys.demoAgentId)).toEqual({ requests: 2, verified: 2, betweenAgents: 1 });
  });

  it('every agent serves only signed callers it knows: an unsigned request and a stranger are refused before the executor', async () => {
    const callee = await host('callee');
    const peer = (await discoverPeers([callee])).get(callee.agentId)!;
    expect(await reasonOfCall(peer)).toBe('UNAUTHENTICATED');
    expect(await reasonOfCall(peer, generateKeyPair('EdDSA'))).toBe('UNAUTHENTICATED');
    expect(callee.executions).toBe(0);
    expect(await reasonOfCall(peer, keys.keyOf('caller'))).toBe('TASK_STATE_COMPLETED');
    expect(callee.served).toEqual([{ verifiedAgentId: agentIdFromPublicKey(keys.keyOf('caller').publicKey), alg: 'hmac-sha256' }]);
  });

  it('counts a request whose lineage names another sender than the verified signer as not verified', async () => {
    const caller = await host('caller');
    const callee = await host('callee');
    const peers = await discoverPeers(agents);
    // Signed by the demo, but the lineage claims the caller agent sent it.
    await connectTo(peers.get(callee.agentId)!, keys.demo).sendMessage(hello(), {
      context: createRootContext({ rootAgentId: caller.agentId }),
    });
    expect(callee.served).toEqual([{ verifiedAgentId: keys.demoAgentId, lineageCaller: caller.agentId, alg: 'hmac-sha256' }]);
    expect(countSignedCalls(agents, keys.demoAgentId)).toEqual({ requests: 1, verified: 0, betweenAgents: 0 });
  });
});
