import type { Dispatcher } from '@a2aplane/a2a-routing';
import { type HostedAgent, hostAgent } from '../agent-host.js';
import { createDelegatorExecutor, DELEGATION_SKILL } from '../agents/delegator.js';
import {
  type AgentSummary,
  type ControlPlane,
  countSignedCalls,
  createDispatcher,
  createKeyDirectory,
  type DiscoveredPeer,
  discoverPeers,
  type KeyDirectory,
  type SignedCalls,
  summarizePeers,
} from '../control-plane.js';
import { countNodes, type DelegationNode } from '../delegation-tree.js';
import type { DemoTracing } from '../tracing.js';
import type { ScenarioOptions } from './remote-equals-local.js';

/** Levels of the binary delegation tree the root asks for (up to 2^10 - 1 = 1023 tasks). */
export const TREE_LEVELS = 10;

export interface BoundedRecursionResult {
  passed: boolean;
  tree: DelegationNode;
  /** Levels of the tree the agents tried to build, and how many tasks that is. */
  levels: number;
  attemptedTasks: number;
  traceId: string;
  maxUsdPerMinute: number;
  maxCallDepth: number;
  spendUsd: number;
  tasksInTrace: number;
  dispatched: number;
  rejectedByReason: Record<string, number>;
  deepestDepth: number;
  /** Every delegation attempted past the depth limit was rejected with RECURSION_LIMIT. */
  depthLimitHeld: boolean;
  cycle: { path: string[]; rejectedWith: string | undefined; callsToA: number; passed: boolean };
  verifiedCards: number;
  agents: AgentSummary[];
  /** Every delegation reached its callee signed by the delegating agent, verified as its AgentID. */
  signedCalls: SignedCalls;
}

const SKILL = { id: DELEGATION_SKILL, name: 'Delegate', description: 'Does costed work and delegates subtasks.', tags: ['demo'] };

function deepest(node: DelegationNode): number {
  return node.children.reduce((max, child) => Math.max(max, child.outcome === 'rejected' ? 0 : deepest(child)), node.depth);
}

function rejectionsPastDepth(node: DelegationNode, maxCallDepth: number): { total: number; recursion: number } {
  let total = 0;
  let recursion = 0;
  const visit = (n: DelegationNode): void => {
    if (n.outcome === 'rejected' && n.depth > maxCallDepth) {
      total += 1;
      if (n.reason === 'RECURSION_LIMIT') recursion += 1;
    }
    n.children.forEach(visit);
  };
  visit(node);
  return { total, recursion };
}

/**
 * Hosts `count` delegating agents on the shared control plane, each with its key from the
 * directory, serving only callers of the directory, and with its own (signing) dispatcher.
 */
async function hostDelegators(
  plane: ControlPlane,
  keys: KeyDirectory,
  names: readonly string[],
  costUsd: number,
  shape: { fanOut: number; levels: number },
  tracing: DemoTracing | undefined,
  next?: (name: string) => string | undefined,
): Promise<{ agents: HostedAgent[]; peers: Map<string, DiscoveredPeer> }> {
  const dispatchers = new Map<string, Dispatcher>();
  const idByName = new Map<string, string>();
  const nameById = new Map<string, string>();
  const agents: HostedAgent[] = [];
  for (const name of names) {
    const agent = await hostAgent({
      name,
      key: keys.keyOf(name),
      callerKeys: keys.publicKeys,
      skill: SKILL,
      governor: (agentId) => plane.governorFor(agentId, undefined, tracing?.governanceHooks),
      estimatedCostUsd: costUsd,
      ...(tracing ? { instrumentation: tracing.serverFor } : {}),
      executor: ({ agentId }) =>
        createDelegatorExecutor({
          self: { agentId, name },
          dispatcher: () => dispatchers.get(agentId)!,
          costUsd,
          ...shape,
          nameOf: (id) => nameById.get(id) ?? id.slice(0, 8),
          ...(next ? { next: () => idByName.get(next(name) ?? '') } : {}),
        }),
    });
    idByName.set(name, agent.agentId);
    nameById.set(agent.agentId, name);
    agents.push(agent);
  }
  let peers: Map<string, DiscoveredPeer>;
  try {
    peers = await discoverPeers(agents, {
      as: keys.demo,
      ...(tracing ? { clientOptions: () => ({ interceptors: tracing.clientInterceptors }) } : {}),
    });
  } catch (error) {
    await Promise.all(agents.map((agent) => agent.close()));
    throw error;
  }
  for (const agent of agents) dispatchers.set(agent.agentId, createDispatcher(plane, agent, peers, tracing?.governanceHooks));
  return { agents, peers };
}

/**
 * ADR-159 acceptance test 3: a 10-level binary delegation tree over twelve agents sharing one
 * budget ledger never spends more, summed over its trace id, than `maxUsdPerMinute`; delegation
 * past `maxCallDepth` is rejected at dispatch; and A -> B -> C -> A is rejected before the second
 * call to A.
 */
export async function runBoundedRecursion(
  plane: ControlPlane,
  /** The cycle runs on its own ledger (a second plane from the same config): the tree spends the first to its cap on purpose. */
  cyclePlane: ControlPlane,
  options: ScenarioOptions & {
    agents?: number;
    costUsd?: number;
    levels?: number;
    /** Trace every agent, client and governance stage with this SDK (the demo's waterfall). */
    tracing?: DemoTracing;
  } = {},
): Promise<BoundedRecursionResult> {
  options.signal?.throwIfAborted();
  const costUsd = options.costUsd ?? 0.01;
  const levels = options.levels ?? TREE_LEVELS;
  const names = Array.from({ length: options.agents ?? 12 }, (_, i) => `delegator-${String(i).padStart(2, '0')}`);
  options.onProgress?.(`scenario 3: starting ${names.length} delegating agents and verifying their cards`);
  const cycleNames = ['A', 'B', 'C'];
  const keys = createKeyDirectory([...names, ...cycleNames]);
  const tree = await hostDelegators(plane, keys, names, costUsd, { fanOut: 2, levels }, options.tracing);
  let cycle: Awaited<ReturnType<typeof hostDelegators>>;
  try {
    cycle = await hostDelegators(
      cyclePlane,
      keys,
      cycleNames,
      0,
      { fanOut: 1, levels: Number.POSITIVE_INFINITY },
      options.tracing,
      (name) => cycleNames[(cycleNames.indexOf(name) + 1) % cycleNames.length],
    );
  } catch (error) {
    await Promise.all(tree.agents.map((agent) => agent.close()));
    throw error;
  }
  const agents = [...summarizePeers(tree.peers), ...summarizePeers(cycle.peers)];
  options.onAgents?.(agents);
  const call = { timeoutMs: 120_000, ...(options.signal ? { signal: options.signal } : {}) };
  try {
    options.onProgress?.(`scenario 3: running the ${levels}-level binary delegation tree`);
    const root = tree.peers.get(tree.agents[0]!.agentId)!;
    const response = await root.client.sendMessage(
      {
        message: {
          messageId: globalThis.crypto.randomUUID(),
          role: 'ROLE_USER',
          parts: [{ text: 'plan the quarter, delegating freely' }],
          metadata: { skillId: DELEGATION_SKILL },
        },
      },
      call,
    );
    const data = response.task?.artifacts?.find((artifact) => artifact.artifactId === 'tree')?.parts[0]?.data as
      | { node: DelegationNode & { traceId?: string } }
      | undefined;
    if (!data) throw new Error('the root agent returned no delegation tree');
    const treeRoot = data.node;
    const traceId = treeRoot.traceId ?? '';
    const spent = plane.spend.byTrace(traceId);
    const maxUsdPerMinute = plane.config.budget?.maxUsdPerMinute ?? Number.POSITIVE_INFINITY;
    const maxCallDepth = plane.config.recursion.maxCallDepth ?? 8;
    const counts = countNodes(treeRoot);
    const pastDepth = rejectionsPastDepth(treeRoot, maxCallDepth);

    options.signal?.throwIfAborted();
    options.onProgress?.('scenario 3: running the A -> B -> C -> A cycle');
    const a = cycle.peers.get(cycle.agents[0]!.agentId)!;
    const cycleResponse = await a.client.sendMessage(
      {
        message: {
          messageId: globalThis.crypto.randomUUID(),
          role: 'ROLE_USER',
          parts: [{ text: 'start the cycle' }],
          metadata: { skillId: DELEGATION_SKILL },
        },
      },
      call,
    );
    const cycleData = cycleResponse.task?.artifacts?.[0]?.parts[0]?.data as { node: DelegationNode } | undefined;
    const path: string[] = [];
    let cursor = cycleData?.node;
    let rejectedWith: string | undefined;
    while (cursor) {
      path.push(cursor.outcome === 'rejected' ? `${cursor.agent} (rejected)` : cursor.agent);
      if (cursor.outcome === 'rejected') rejectedWith = cursor.reason;
      cursor = cursor.children[0];
    }
    const callsToA = cycle.agents[0]!.executions;
    const cyclePassed = rejectedWith === 'RECURSION_LIMIT' && callsToA === 1 && path.join(' -> ') === 'A -> B -> C -> A (rejected)';

    const deepestDepth = deepest(treeRoot);
    const depthLimitHeld = deepestDepth <= maxCallDepth && pastDepth.total === pastDepth.recursion;
    const signedCalls = countSignedCalls([...tree.agents, ...cycle.agents], keys.demoAgentId);
    const passed =
      spent.usd <= maxUsdPerMinute + 1e-9 &&
      depthLimitHeld &&
      pastDepth.recursion > 0 &&
      cyclePassed &&
      signedCalls.verified === signedCalls.requests &&
      signedCalls.betweenAgents > 0;
    return {
      passed,
      tree: treeRoot,
      levels,
      attemptedTasks: 2 ** levels - 1,
      traceId,
      maxUsdPerMinute,
      maxCallDepth,
      spendUsd: spent.usd,
      tasksInTrace: spent.tasks,
      dispatched: counts.dispatched,
      rejectedByReason: counts.rejectedByReason,
      deepestDepth,
      depthLimitHeld,
      cycle: { path, rejectedWith, callsToA, passed: cyclePassed },
      verifiedCards: [...tree.peers.values(), ...cycle.peers.values()].filter((peer) => peer.verification === 'valid').length,
      agents,
      signedCalls,
    };
  } finally {
    await Promise.all([...tree.agents, ...cycle.agents].map((agent) => agent.close()));
  }
}
