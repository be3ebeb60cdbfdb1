import { randomBytes } from 'node:crypto';
import { CardSignatureInvalidError, createA2AClient, type A2AClient } from '@a2aplane/a2a-client';
import { createRemoteExecutorFactory } from '@a2aplane/a2a-client/routing';
import { createRootContext } from '@a2aplane/a2a-governance';
import { agentIdFromPublicKey, createHttpRequestSigner, createJwks, generateKeyPair, type KeyPair } from '@a2aplane/a2a-identity';
import {
  createProber,
  createRegistryCardVerifier,
  createRegistryHttpReader,
  createRegistryPeerSource,
  createRegistryTrust,
  type RegistryCardVerifier,
  startRegistryService,
} from '@a2aplane/a2a-registry';
import { createDispatcher, createPeerPool, type Dispatcher, type PeerPool, roundRobin } from '@a2aplane/a2a-routing';
import { artifactVersionNegotiator } from '@a2aplane/a2a-rulake-artifacts';
import { type AgentExecutor, createTaskUpdater } from '@a2aplane/a2a-server-express';
import { A2AError } from '@a2aplane/a2a-types';
import { type HostedAgent, hostAgent } from '../agent-host.js';
import { createWorkerExecutor } from '../agents/worker.js';
import type { AgentSummary, ControlPlane } from '../control-plane.js';
import type { ScenarioOptions } from './remote-equals-local.js';

/** How long a server reuses the registry's answer about a caller: the bound on revocation. */
export const REVOCATION_TTL_MS = 1000;
/** The goal: revocation effective at every server of the demo within this. */
export const REVOCATION_GOAL_MS = 5000;

export interface RegistryResult {
  passed: boolean;
  /** Agents enrolled at start (each with its signed card, verified against its origin). */
  enrolled: number;
  /** The prober's verdict per agent (a real A2A exchange). */
  health: Record<string, string>;
  /** The peers the delegator's pool got from a registry search by skill `work`. */
  peersBySkill: string[];
  /** Who served the delegator's subtask before and after the revocation. */
  delegatedTo: { before: string; after: string };
  /** The revoked agent's call before the revocation, then its next call at each other server. */
  revokedCalls: { before: string; after: Record<string, string> };
  /** Time from the revocation to the revoked agent's first refused call, at the slowest server. */
  revocationEffectiveMs: number;
  /** Whether the revoked agent left the delegator's pool, and a client given the registry refuses its card. */
  droppedFromPool: boolean;
  cardRefused: boolean;
  agents: AgentSummary[];
}

const WORK_SKILL = { id: 'work', name: 'Work', description: 'Summarises text.', tags: ['demo'] };
const DELEGATE_SKILL = { id: 'delegate', name: 'Delegate', description: 'Hands a subtask to a peer found by skill.', tags: ['demo'] };

const reasonOf = (error: unknown): string =>
  A2AError.isInstance(error) ? error.reason : error instanceof Error ? error.name : String(error);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const message = (text: string, skillId: string) => ({
  message: { messageId: globalThis.crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text }], metadata: { skillId } },
});

/** The delegator: hands each task to one `work` peer of its pool (filled from the registry), and says who served it. */
function delegatorExecutor(self: { agentId: string }, dispatcher: () => Dispatcher, nameOf: (id: string) => string): AgentExecutor {
  return {
    async execute(context, events) {
      const task = createTaskUpdater(context, events);
      task.submit();
      const result = await dispatcher().dispatch({
        request: message('subtask', 'work'),
        task: { skillId: 'work' },
        caller: self.agentId,
        context: createRootContext({ rootAgentId: self.agentId }),
        parentTaskId: context.taskId,
        signal: context.signal,
      });
      task.addArtifact([{ text: nameOf(result.peerId ?? '') }], { artifactId: 'served-by', name: 'served by', lastChunk: true });
      task.complete();
    },
  };
}

/** Enrollment at start: each agent's card as its server serves it, with its public key. */
async function enrollAll(registryUrl: string, token: string, agents: readonly HostedAgent[]): Promise<number> {
  let enrolled = 0;
  for (const agent of agents) {
    const card = await (await fetch(`${agent.url}/.well-known/agent-card.json`)).text();
    const response = await fetch(`${registryUrl}/admin/enroll`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ card, jwks: createJwks([agent.key]), owner: 'demo' }),
    });
    if (response.status !== 201) throw new Error(`${agent.name} was not enrolled: HTTP ${response.status} ${await response.text()}`);
    enrolled += 1;
  }
  return enrolled;
}

/**
 * Calls each target as the revoked agent until a call is refused; returns each target's first
 * refusal and the time from `revokedAt` to the last of them.
 */
async function untilRefused(
  targets: readonly HostedAgent[],
  call: (target: HostedAgent) => Promise<string>,
  revokedAt: number,
  signal: AbortSignal | undefined,
): Promise<{ after: Record<string, string>; effectiveMs: number }> {
  const after: Record<string, string> = {};
  let effectiveMs = 0;
  for (const target of targets) {
    for (;;) {
      signal?.throwIfAborted();
      const outcome = await call(target);
      const elapsed = performance.now() - revokedAt;
      if (outcome !== 'TASK_STATE_COMPLETED' || elapsed > REVOCATION_GOAL_MS * 2) {
        after[target.name] = outcome;
        effectiveMs = Math.max(effectiveMs, Math.round(elapsed));
        break;
      }
      await sleep(50);
    }
  }
  return { after, effectiveMs };
}

/**
 * The delegator's dispatcher over a pool the registry fills: its clients discover each peer's card
 * through the registry's card verifier and sign every request with the delegator's key.
 */
function registryDispatcher(key: KeyPair, pool: PeerPool, cardVerifier: RegistryCardVerifier): Dispatcher {
  const signer = createHttpRequestSigner({ key });
  const clients = new Map<string, A2AClient>();
  const clientFor = (peerId: string, baseUrl: string) => {
    let client = clients.get(peerId);
    if (!client) {
      client = createA2AClient({ baseUrl, cardVerifier, allowInsecureLoopback: true, auth: signer, retry: { retries: 0 } });
      clients.set(peerId, client);
    }
    return client;
  };
  return createDispatcher({
    selfAgentId: agentIdFromPublicKey(key.publicKey),
    pool,
    selector: roundRobin({ seed: 0 }),
    remoteExecutor: createRemoteExecutorFactory({
      clientFor: (peer) => clientFor(peer.id, new URL(peer.card.supportedInterfaces[0]?.url ?? '').origin),
    }),
  });
}

/**
 * Scenario 5 (issue 34): the registry. A registry starts; every agent enrolls its signed card at
 * start; the prober checks each with a real A2A exchange; every server takes its callers' keys
 * from the registry; the delegator's peers come from a registry search by skill. Then an agent is
 * revoked: its next call is refused at every other server (the time is measured), it leaves the
 * delegator's pool, a client given the registry refuses its card, and the delegator's next
 * subtask goes to the remaining peer.
 */
export async function runRegistry(_plane: ControlPlane, options: ScenarioOptions = {}): Promise<RegistryResult> {
  options.signal?.throwIfAborted();
  options.onProgress?.('scenario 5: starting a registry and three agents that enroll at start');
  const token = randomBytes(24).toString('hex');
  const service = await startRegistryService({ operatorTokens: { demo: token }, registryOptions: { allowLoopback: true }, prober: false });
  const reader = createRegistryHttpReader({ baseUrl: service.url });
  const demoKey = generateKeyPair('EdDSA');
  const demoAgentId = agentIdFromPublicKey(demoKey.publicKey);
  const agents: HostedAgent[] = [];
  try {
    // Every server asks the registry who a caller is (cached REVOCATION_TTL_MS); the demo itself,
    // which starts each task, is the one caller it knows out of band.
    const resolveCallerKeyFor = () => {
      const trust = createRegistryTrust(reader, { ttlMs: REVOCATION_TTL_MS });
      return (agentId: string) =>
        agentId === demoAgentId
          ? { algorithm: 'EdDSA' as const, kid: demoKey.kid, publicKey: demoKey.publicKey }
          : trust.resolveKey(agentId);
    };
    const names = new Map<string, string>();
    const cardVerifier = createRegistryCardVerifier(reader, { ttlMs: REVOCATION_TTL_MS });
    const pool = createPeerPool({ negotiate: artifactVersionNegotiator() });
    const peers = createRegistryPeerSource(reader, pool, { skill: 'work' });
    const delegatorKey = generateKeyPair('EdDSA');
    const dispatcher = registryDispatcher(delegatorKey, pool, cardVerifier);
    const delegator = await hostAgent({
      name: 'delegator',
      key: delegatorKey,
      skill: DELEGATE_SKILL,
      executor: (self) =>
        delegatorExecutor(
          self,
          () => dispatcher,
          (id) => names.get(id) ?? id,
        ),
      resolveCallerKey: resolveCallerKeyFor(),
    });
    agents.push(delegator);
    for (const name of ['worker-a', 'worker-b']) {
      agents.push(
        await hostAgent({ name, skill: WORK_SKILL, executor: () => createWorkerExecutor(), resolveCallerKey: resolveCallerKeyFor() }),
      );
    }
    const [, workerA, workerB] = agents as [HostedAgent, HostedAgent, HostedAgent];
    for (const agent of agents) names.set(agent.agentId, agent.name);

    const enrolled = await enrollAll(service.url, token, agents);
    options.onAgents?.(agents.map((agent) => ({ name: agent.name, url: agent.url, agentId: agent.agentId, card: 'enrolled' })));

    options.onProgress?.('scenario 5: probing every agent, then filling the delegator pool by skill');
    // The prober signs as the demo, a caller every server trusts: it then sees TaskNotFound, not a refusal.
    const demoSigner = createHttpRequestSigner({ key: demoKey });
    await createProber(service.registry, { allowLoopback: true, signRequest: (request) => demoSigner.sign(request) }).runOnce();
    const health: Record<string, string> = {};
    for (const agent of agents) health[agent.name] = (await reader.lookupAgent(agent.agentId))?.health.status ?? 'missing';
    await peers.refresh();
    const peersBySkill = pool
      .ids()
      .map((id) => names.get(id) ?? id)
      .sort();

    const demoClient = createA2AClient({
      baseUrl: delegator.url,
      cardVerifier,
      allowInsecureLoopback: true,
      auth: demoSigner,
      retry: { retries: 0 },
    });
    const delegate = async (): Promise<string> => {
      const response = await demoClient.sendMessage(message('find a worker', 'delegate'));
      return response.task?.artifacts?.find((artifact) => artifact.artifactId === 'served-by')?.parts[0]?.text ?? 'none';
    };
    const before = await delegate();

    // The agent to revoke calls the others, signing as itself.
    const asRevoked = (target: HostedAgent) =>
      createA2AClient({
        baseUrl: target.url,
        cardVerifier,
        allowInsecureLoopback: true,
        auth: createHttpRequestSigner({ key: workerA.key }),
        retry: { retries: 0 },
      });
    const callAsRevoked = async (target: HostedAgent): Promise<string> => {
      try {
        const response = await asRevoked(target).sendMessage(
          message(`hello from ${workerA.name}`, target === delegator ? 'delegate' : 'work'),
        );
        return response.task?.status.state ?? 'message';
      } catch (error) {
        return reasonOf(error);
      }
    };
    const revokedBefore = await callAsRevoked(workerB);

    options.onProgress?.(`scenario 5: revoking ${workerA.name}`);
    const revoke = await fetch(`${service.url}/admin/agents/${workerA.agentId}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ reason: 'demo: key reported lost' }),
    });
    if (revoke.status !== 200) throw new Error(`revocation failed: HTTP ${revoke.status}`);
    const revokedAt = performance.now();
    const { after, effectiveMs: revocationEffectiveMs } = await untilRefused(
      [delegator, workerB],
      callAsRevoked,
      revokedAt,
      options.signal,
    );
    const refreshed = await peers.refresh();
    const droppedFromPool = refreshed.removed.includes(workerA.agentId) && !pool.has(workerA.agentId);
    // A client that meets the revoked agent now (its verifier has no earlier answer cached).
    const freshVerifier = createRegistryCardVerifier(reader, { ttlMs: REVOCATION_TTL_MS });
    const cardRefused = await createA2AClient({ baseUrl: workerA.url, cardVerifier: freshVerifier, allowInsecureLoopback: true })
      .getCard()
      .then(
        () => false,
        (error: unknown) => CardSignatureInvalidError.isInstance(error),
      );
    const afterDelegation = await delegate();

    const passed =
      enrolled === 3 &&
      Object.values(health).every((status) => status === 'up') &&
      peersBySkill.join(',') === 'worker-a,worker-b' &&
      before !== 'none' &&
      revokedBefore === 'TASK_STATE_COMPLETED' &&
      Object.values(after).every((outcome) => outcome === 'UNAUTHENTICATED') &&
      revocationEffectiveMs <= REVOCATION_GOAL_MS &&
      droppedFromPool &&
      cardRefused &&
      afterDelegation === 'worker-b';
    return {
      passed,
      enrolled,
      health,
      peersBySkill,
      delegatedTo: { before, after: afterDelegation },
      revokedCalls: { before: revokedBefore, after },
      revocationEffectiveMs,
      droppedFromPool,
      cardRefused,
      agents: agents.map((agent) => ({ name: agent.name, url: agent.url, agentId: agent.agentId, card: 'enrolled' })),
    };
  } finally {
    await Promise.all(agents.map((agent) => agent.close()));
    await service.close();
  }
}
