import { fileURLToPath } from 'node:url';
import {
  type A2AClient,
  type A2AClientOptions,
  type CardVerificationResult,
  createA2AClient,
  createCardResolver,
} from '@a2aplane/a2a-client';
import { createRemoteExecutorFactory } from '@a2aplane/a2a-client/routing';
import {
  type BudgetLedger,
  type CallAuthorizer,
  createCallAuthorizer,
  createGovernanceEvents,
  createInMemoryBudgetLedger,
  type GovernanceEvents,
  type GovernanceHooks,
  type Governor,
  type MaterializedConfig,
  materializeConfig,
  type SpendAggregator,
  createGovernor,
  createTaskPolicyEngine,
  createRecursionPolicy,
  createSpendAggregator,
} from '@a2aplane/a2a-governance';
import { loadOperatorConfigFile } from '@a2aplane/a2a-governance/node';
import {
  agentIdFromPublicKey,
  checkCardAgentId,
  createAllowlistIdentityResolver,
  createHttpRequestSigner,
  createPinnedKeyResolver,
  exportPublicJwk,
  generateKeyPair,
  type KeyPair,
  type PublicJwk,
  verifyAgentCard,
} from '@a2aplane/a2a-identity';
import {
  createDefaultSelectorRegistry,
  type Dispatcher,
  type PeerSelector,
  selectorFromConfig,
  createDispatcher as createRoutingDispatcher,
  createPeerPool,
} from '@a2aplane/a2a-routing';
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
  governorFor(agentId: string, authorize?: CallAuthorizer, hooks?: GovernanceHooks): Governor;
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
  const spend = createSpendAggregator();
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
    governorFor: (agentId, authorize, hooks) =>
      createGovernor({
        selfAgentId: agentId,
        ...(authorize ? { authorize } : {}),
        ...(hooks ? { hooks } : {}),
        budget: ledger,
        // The demo's agents pass estimatedCostUsd on each call (agent-host), not a cost block.
        allowUnestimatedUsd: true,
        recursion: createRecursionPolicy(config.recursion),
        policy: createTaskPolicyEngine(config.policy),
        events,
        spend,
      }),
  };
}

export interface DiscoveredPeer {
  agent: HostedAgent;
  card: AgentCard;
  /** A client to this peer for whoever discovered it (signing as `DiscoverOptions.as`, if given). */
  client: A2AClient;
  verification: string;
  /** What discovery verified of the card: with a signing key, callers may sign with the fast path the card advertises. */
  cardVerification?: CardVerificationResult;
  /** What every client to this peer is made with (the verified card's resolver, per-peer options). */
  clientOptions: Partial<A2AClientOptions>;
}

/**
 * The key directory of one scenario: an Ed25519 key per agent and one for the demo itself (the
 * caller that starts each scenario), made before any agent starts, so that every agent pins the
 * public keys of all its possible callers: the demo knows them all.
 */
export interface KeyDirectory {
  /** The demo's own key: it signs the requests that start a scenario. */
  demo: KeyPair;
  /** The AgentID of `demo`. */
  demoAgentId: string;
  /** The key of the named agent. */
  keyOf(name: string): KeyPair;
  /** Every public key of the directory (the demo's and the agents'), for `hostAgent({ callerKeys })`. */
  publicKeys: readonly PublicJwk[];
}

export function createKeyDirectory(names: readonly string[]): KeyDirectory {
  const keys = new Map(names.map((name) => [name, generateKeyPair('EdDSA')]));
  const demo = generateKeyPair('EdDSA');
  return {
    demo,
    demoAgentId: agentIdFromPublicKey(demo.publicKey),
    keyOf: (name) => {
      const key = keys.get(name);
      if (!key) throw new Error(`no key for agent ${name} in the key directory`);
      return key;
    },
    publicKeys: [demo, ...keys.values()].map((key) => exportPublicJwk(key)),
  };
}

/** How the requests that reached the agents' executors were authenticated (requests between agents included). */
export interface SignedCalls {
  /** Requests that reached an executor. */
  requests: number;
  /** Of those, the ones whose verified caller (RFC 9421 signature, `keyid` = AgentID) is the agent that sent them. */
  verified: number;
  /** Of those, the ones sent by another demo agent (the rest the demo itself sent). */
  betweenAgents: number;
}

/**
 * Checks who the agents' servers say called them: a request whose lineage names a demo agent as
 * the sender must have been verified as that agent; any other (a root task) as the demo itself.
 */
export function countSignedCalls(agents: readonly HostedAgent[], demoAgentId: string): SignedCalls {
  const ids = new Set(agents.map((agent) => agent.agentId));
  const result: SignedCalls = { requests: 0, verified: 0, betweenAgents: 0 };
  for (const agent of agents) {
    for (const call of agent.served) {
      result.requests += 1;
      const fromAgent = call.lineageCaller !== undefined && ids.has(call.lineageCaller);
      const expected = fromAgent ? call.lineageCaller : demoAgentId;
      if (call.verifiedAgentId === expected) {
        result.verified += 1;
        if (fromAgent) result.betweenAgents += 1;
      }
    }
  }
  return result;
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
 * An A2A client to a discovered peer; with `caller`, every request is signed with its key (RFC
 * 9421, `keyid` = its AgentID): with the fast path (hmac-sha256) when discovery verified the
 * peer's card and the card advertises it (`forPeer` decides, decision 0037), else Ed25519.
 */
export function connectTo(peer: Pick<DiscoveredPeer, 'clientOptions' | 'cardVerification'>, caller?: KeyPair): A2AClient {
  if (caller === undefined) return createA2AClient(peer.clientOptions);
  const signer = createHttpRequestSigner({ key: caller });
  const { card } = peer.clientOptions;
  // The client is given the card discovery verified, so it does not discover (nor call forPeer) itself.
  const auth =
    card !== undefined && peer.cardVerification !== undefined ? signer.forPeer({ card, verification: peer.cardVerification }) : signer;
  return createA2AClient({ ...peer.clientOptions, auth });
}

export interface DiscoverOptions {
  /** Options of the clients to one agent (interceptors, retries). */
  clientOptions?: (agent: HostedAgent) => Partial<A2AClientOptions>;
  /** Who discovers: `DiscoveredPeer.client` signs every request with this key. Default: unsigned. */
  as?: KeyPair;
}

/**
 * Discovers every agent the way a stranger would: fetches its card over HTTP, verifies the JWS
 * against the trusted keys (verify-on-discover: a tampered card never reaches an RPC), and checks
 * that the card's AgentID names the key that signed it.
 */
export async function discoverPeers(agents: readonly HostedAgent[], options: DiscoverOptions = {}): Promise<Map<string, DiscoveredPeer>> {
  const trusted = createPinnedKeyResolver(agents.map((agent) => exportPublicJwk(agent.key)));
  const resolver = createCardResolver({
    cardVerifier: (json) => verifyAgentCard(json, trusted),
    unsignedCardPolicy: 'reject',
  });
  const peers = new Map<string, DiscoveredPeer>();
  for (const agent of agents) {
    const discovered = await resolver.resolve(agent.url);
    const identity = checkCardAgentId(discovered.card, { algorithm: 'EdDSA', kid: agent.key.kid, publicKey: agent.key.publicKey });
    if (!identity.ok) throw new Error(`${agent.name}: card AgentID does not match its signing key (${identity.reason})`);
    const clientOptions = { card: discovered.card, cardResolver: resolver, timeoutMs: CALL_TIMEOUT_MS, ...options.clientOptions?.(agent) };
    const verification = discovered.verification?.status ?? 'unsigned';
    const cardVerification = discovered.verification;
    peers.set(agent.agentId, {
      agent,
      card: discovered.card,
      client: connectTo({ clientOptions, cardVerification }, options.as),
      verification,
      cardVerification,
      clientOptions,
    });
  }
  return peers;
}

/**
 * The outbound dispatcher of one agent, over a pool of the discovered peers: its clients sign
 * every request with the agent's own key, so each peer's server verifies who is calling.
 */
export function createDispatcher(
  plane: ControlPlane,
  self: Pick<HostedAgent, 'agentId' | 'key'>,
  peers: ReadonlyMap<string, DiscoveredPeer>,
  /** Stage hooks of the dispatcher's governor (tracing). */
  hooks?: GovernanceHooks,
): Dispatcher {
  const selfAgentId = self.agentId;
  // Negotiation on discovery: a peer that speaks no typed-artifact version of ours is refused
  // with IncompatiblePeerError; a compatible one carries the agreed version in `terms`.
  const pool = createPeerPool({ negotiate: artifactVersionNegotiator() });
  const clients = new Map<string, A2AClient>();
  for (const [id, peer] of peers) {
    if (id === selfAgentId) continue;
    pool.upsert(id, peer.card);
    clients.set(id, connectTo(peer, self.key));
  }
  return createRoutingDispatcher({
    selfAgentId,
    pool,
    selector: plane.selector(),
    remoteExecutor: createRemoteExecutorFactory({ clientFor: (peer) => clients.get(peer.id)! }),
    // Outbound, the dispatcher guards recursion before it calls anyone; the budget and the task
    // policy are enforced once, by the receiving agent's governor on the shared ledger.
    recursion: createRecursionPolicy(plane.config.recursion),
    events: plane.events,
    ...(hooks ? { hooks } : {}),
  });
}
