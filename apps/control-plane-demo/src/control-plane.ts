import { fileURLToPath } from 'node:url';
import { type A2AClient, type A2AClientOptions, CardResolver, createA2AClient } from '@a2aplane/a2a-client';
import { createRemoteExecutorFactory } from '@a2aplane/a2a-client/routing';
import {
  type BudgetLedger,
  type CallAuthorizer,
  createCallAuthorizer,
  createGovernanceEvents,
  createInMemoryBudgetLedger,
  type GovernanceEvents,
  Governor,
  type MaterializedConfig,
  materializeConfig,
  RecursionPolicy,
  SpendAggregator,
  TaskPolicyEngine,
} from '@a2aplane/a2a-governance';
import { loadOperatorConfigFile } from '@a2aplane/a2a-governance/node';
import {
  checkCardAgentId,
  createAllowlistIdentityResolver,
  createPinnedKeyResolver,
  exportPublicJwk,
  verifyAgentCard,
} from '@a2aplane/a2a-identity';
import { createDefaultSelectorRegistry, Dispatcher, PeerPool, type PeerSelector, selectorFromConfig } from '@a2aplane/a2a-routing';
import { artifactVersionNegotiator } from '@a2aplane/a2a-rulake-artifacts';
import type { AgentCard } from '@a2aplane/a2a-types';
import type { HostedAgent } from './agent-host.js';

export const DEFAULT_CONFIG_PATH = fileURLToPath(new URL('../config/control-plane.yaml', import.meta.url));

/** Per-call limit of the demo's A2A clients: the 1M-vector hand-off takes a few seconds. */
export const CALL_TIMEOUT_MS = 120_000;

/** What every agent of the demo shares: the operator config, one budget ledger, one spend view, events. */
export interface ControlPlane {
  config: MaterializedConfig;
  ledger: BudgetLedger;
  spend: SpendAggregator;
  events: GovernanceEvents;
  selector: () => PeerSelector;
  /** The inbound gate of one agent: [authorize ->] budget -> recursion -> policy, on the shared ledger. */
  governorFor(agentId: string, authorize?: CallAuthorizer): Governor;
  /**
   * The trust gate of the operator config: its `trust.allowlist`, or (when the file sets none) the
   * AgentIDs the demo enrolled, through a2a-identity's allowlist resolver; its rules and tiers apply.
   */
  authorizerFor(enrolled: readonly string[]): CallAuthorizer;
}

export async function createControlPlane(configPath = DEFAULT_CONFIG_PATH): Promise<ControlPlane> {
  const registry = createDefaultSelectorRegistry();
  const config = materializeConfig(await loadOperatorConfigFile(configPath), { knownSelectors: registry.names() });
  const ledger = createInMemoryBudgetLedger(config.budget ?? {});
  const spend = new SpendAggregator();
  const events = createGovernanceEvents();
  const routing = config.routing;
  return {
    config,
    ledger,
    spend,
    events,
    selector: () => selectorFromConfig(routing ?? { defaultSelector: 'lowest_latency', fallback: [] }, registry),
    authorizerFor: (enrolled) =>
      createCallAuthorizer({
        identity: createAllowlistIdentityResolver(config.trust?.allowlist ?? enrolled),
        ...(config.trust?.rules ? { rules: config.trust.rules } : {}),
        ...(config.trust?.tiers ? { tiers: config.trust.tiers } : {}),
      }),
    governorFor: (agentId, authorize) =>
      new Governor({
        selfAgentId: agentId,
        ...(authorize ? { authorize } : {}),
        budget: ledger,
        recursion: new RecursionPolicy(config.recursion),
        policy: new TaskPolicyEngine(config.policy),
        events,
        spend,
      }),
  };
}

export interface DiscoveredPeer {
  agent: HostedAgent;
  card: AgentCard;
  client: A2AClient;
  verification: string;
}

/** What the report says about one agent the demo started. */
export interface AgentSummary {
  name: string;
  url: string;
  agentId: string;
  /** The card's signature as verified on discovery (`valid`). */
  card: string;
}

export const summarizePeers = (peers: ReadonlyMap<string, DiscoveredPeer>): AgentSummary[] =>
  [...peers.values()].map((peer) => ({ name: peer.agent.name, url: peer.agent.url, agentId: peer.agent.agentId, card: peer.verification }));

/**
 * Discovers every agent the way a stranger would: fetches its card over HTTP, verifies the JWS
 * against the trusted keys (verify-on-discover: a tampered card never reaches an RPC), and checks
 * that the card's AgentID names the key that signed it.
 */
export async function discoverPeers(
  agents: readonly HostedAgent[],
  clientOptions: (agent: HostedAgent) => Partial<A2AClientOptions> = () => ({}),
): Promise<Map<string, DiscoveredPeer>> {
  const trusted = createPinnedKeyResolver(agents.map((agent) => exportPublicJwk(agent.key)));
  const resolver = new CardResolver({
    cardVerifier: (json) => verifyAgentCard(json, trusted),
    unsignedCardPolicy: 'reject',
  });
  const peers = new Map<string, DiscoveredPeer>();
  for (const agent of agents) {
    const discovered = await resolver.resolve(agent.url);
    const identity = checkCardAgentId(discovered.card, { algorithm: 'EdDSA', kid: agent.key.kid, publicKey: agent.key.publicKey });
    if (!identity.ok) throw new Error(`${agent.name}: card AgentID does not match its signing key (${identity.reason})`);
    const client = createA2AClient({ card: discovered.card, cardResolver: resolver, timeoutMs: CALL_TIMEOUT_MS, ...clientOptions(agent) });
    peers.set(agent.agentId, { agent, card: discovered.card, client, verification: discovered.verification?.status ?? 'unsigned' });
  }
  return peers;
}

/** The outbound dispatcher of one agent, over a pool of the discovered peers. */
export function createDispatcher(plane: ControlPlane, selfAgentId: string, peers: ReadonlyMap<string, DiscoveredPeer>): Dispatcher {
  // Negotiation on discovery: a peer that speaks no typed-artifact version of ours is refused
  // with IncompatiblePeerError; a compatible one carries the agreed version in `terms`.
  const pool = new PeerPool({ negotiate: artifactVersionNegotiator() });
  for (const [id, peer] of peers) if (id !== selfAgentId) pool.upsert(id, peer.card);
  return new Dispatcher({
    selfAgentId,
    pool,
    selector: plane.selector(),
    remoteExecutor: createRemoteExecutorFactory({ clientFor: (peer) => peers.get(peer.id)!.client }),
    // Outbound, the dispatcher guards recursion before it calls anyone; the budget and the task
    // policy are enforced once, by the receiving agent's governor on the shared ledger.
    recursion: new RecursionPolicy(plane.config.recursion),
    events: plane.events,
  });
}
