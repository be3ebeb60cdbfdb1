import {
  agentIdFromPublicKey,
  createCallerKeyResolver,
  createHttpSignatureVerifier,
  exportPublicJwk,
  generateKeyPair,
  type KeyPair,
} from '@a2aplane/a2a-identity';
import { createHttpSignatureAuthenticator, verifyEd25519 } from '@a2aplane/a2a-server-express';
import { A2AError } from '@a2aplane/a2a-types';
import { type HostedAgent, hostAgent } from '../agent-host.js';
import { createWorkerExecutor } from '../agents/worker.js';
import { type AgentSummary, type ControlPlane, discoverPeers, summarizePeers } from '../control-plane.js';
import type { ScenarioOptions } from './remote-equals-local.js';

export interface TrustCall {
  caller: string;
  /** The caller's AgentID; absent for the anonymous call. */
  agentId?: string;
  /** `TASK_STATE_COMPLETED` when served, else the refusal's reason (`FORBIDDEN`, `UNAUTHENTICATED`). */
  outcome: string;
}

export interface TrustResult {
  passed: boolean;
  /** Enrolled agent, unlisted agent (its own key, AgentID and valid card), anonymous caller. */
  calls: TrustCall[];
  /** Tasks that reached the gatekeeper's executor (only the enrolled agent's). */
  executions: number;
  /** How callers prove their AgentID in this run. */
  callerProof: string;
  agents: AgentSummary[];
}

const WORK_SKILL = { id: 'work', name: 'Work', description: 'Summarises text.', tags: ['demo'] };

const reasonOf = (error: unknown): string =>
  A2AError.isInstance(error) ? error.reason : error instanceof Error ? error.name : String(error);

/**
 * Who may call whom (issue 16, ADR-159 r2 open question 2): a gatekeeper agent serves only the
 * AgentIDs on its trust allowlist (the operator config's `trust.allowlist`, or the agents the demo
 * enrolled), inside its governance pipeline, before the budget. An enrolled agent is served; an
 * agent with its own key, AgentID and valid signed card that is not on the list is refused
 * (`FORBIDDEN`); a caller that proves no AgentID is refused (`UNAUTHENTICATED`). Callers prove
 * their AgentID by signing each request with their Ed25519 key (RFC 9421, `keyid` = AgentID); the
 * gatekeeper verifies against the operator's key directory (every agent's key is known: being
 * known is not being allowed).
 */
export async function runTrust(plane: ControlPlane, options: ScenarioOptions = {}): Promise<TrustResult> {
  options.signal?.throwIfAborted();
  options.onProgress?.('scenario 4: starting a gatekeeper, an enrolled agent and an unlisted one');
  const memberKey = generateKeyPair('EdDSA');
  const intruderKey = generateKeyPair('EdDSA');
  const gatekeeperKey = generateKeyPair('EdDSA');
  const member = agentIdFromPublicKey(memberKey.publicKey);
  const gatekeeperId = agentIdFromPublicKey(gatekeeperKey.publicKey);
  // Who is who: the operator's key directory holds every agent's key; the allowlist does not.
  const verifier = createHttpSignatureVerifier({
    resolveKey: createCallerKeyResolver({ keys: [memberKey, intruderKey, gatekeeperKey] }),
    verifyEd25519,
  });
  const authenticate = createHttpSignatureAuthenticator({ verifier, allowAnonymous: true });
  const authorize = plane.authorizerFor([member, gatekeeperId]);

  const agents: HostedAgent[] = [];
  try {
    const gatekeeper = await hostAgent({
      name: 'gatekeeper',
      key: gatekeeperKey,
      skill: WORK_SKILL,
      executor: () => createWorkerExecutor(),
      governor: (agentId) => plane.governorFor(agentId, authorize),
      authenticate,
    });
    agents.push(gatekeeper);
    // The other two serve only signed callers of the directory, as every agent of the demo does.
    const callerKeys = [memberKey, intruderKey, gatekeeperKey].map((key) => exportPublicJwk(key));
    const peer = (name: string, key: KeyPair) =>
      hostAgent({ name, key, callerKeys, skill: WORK_SKILL, executor: () => createWorkerExecutor() });
    const enrolled = await peer('enrolled', memberKey);
    agents.push(enrolled);
    const intruder = await peer('unlisted', intruderKey);
    agents.push(intruder);

    // Every caller discovers (and verifies) the gatekeeper's card, then calls with its own credential.
    const all = await discoverPeers(agents);
    options.onAgents?.(summarizePeers(all));
    const clientOf = async (key: KeyPair | undefined) => {
      const discovered = await discoverPeers([gatekeeper], {
        clientOptions: () => ({ retry: { retries: 0 } }),
        ...(key ? { as: key } : {}),
      });
      return discovered.get(gatekeeper.agentId)!.client;
    };
    const callAs = async (caller: string, agentId: string | undefined, key: KeyPair | undefined): Promise<TrustCall> => {
      options.signal?.throwIfAborted();
      const client = await clientOf(key);
      try {
        const response = await client.sendMessage(
          {
            message: {
              messageId: globalThis.crypto.randomUUID(),
              role: 'ROLE_USER',
              parts: [{ text: `hello from ${caller}` }],
              metadata: { skillId: 'work' },
            },
          },
          options.signal ? { signal: options.signal } : {},
        );
        return { caller, ...(agentId ? { agentId } : {}), outcome: response.task?.status.state ?? 'message' };
      } catch (error) {
        return { caller, ...(agentId ? { agentId } : {}), outcome: reasonOf(error) };
      }
    };
    options.onProgress?.('scenario 4: the enrolled agent, the unlisted agent and an anonymous caller call the gatekeeper');
    const calls = [
      await callAs('enrolled', enrolled.agentId, memberKey),
      await callAs('unlisted', intruder.agentId, intruderKey),
      await callAs('anonymous', undefined, undefined),
    ];
    const expected = ['TASK_STATE_COMPLETED', 'FORBIDDEN', 'UNAUTHENTICATED'];
    const passed = calls.every((call, index) => call.outcome === expected[index]) && gatekeeper.executions === 1;
    return {
      passed,
      calls,
      executions: gatekeeper.executions,
      callerProof: 'signing each request with their Ed25519 key (RFC 9421, keyid = AgentID)',
      agents: summarizePeers(all),
    };
  } finally {
    await Promise.all(agents.map((agent) => agent.close()));
  }
}
