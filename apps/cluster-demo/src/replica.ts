// One replica of the cluster agent: a child process the demo forks (and kills). Everything it
// knows about tasks lives in Redis or PostgreSQL, budgets and concurrency in Redis; it tells its
// parent its URL over IPC.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type A2AClient, createA2AClient } from '@a2aplane/a2a-client';
import { createGovernor, createRecursionPolicy, createTaskPolicyEngine } from '@a2aplane/a2a-governance';
import { createRedisBudgetLedger, createRedisConcurrencySlots, createRedisConnection } from '@a2aplane/a2a-redis';
import {
  type AgentExecutor,
  createA2AServer,
  createAgentCard,
  createNodeHttpHandler,
  createTaskUpdater,
} from '@a2aplane/a2a-server-express';
import { A2AError } from '@a2aplane/a2a-types';
import { parseBackend, replicaState } from './backend.js';
import { AGENT_ID, TREE_NODE_USD, type TreeNode } from './tree.js';

const replica = process.env.REPLICA_ID ?? 'replica';
const keyPrefix = process.env.CLUSTER_PREFIX ?? 'cluster-demo:';
const maxUsdPerMinute = Number(process.env.CLUSTER_MAX_USD ?? '2');
const maxCallDepth = Number(process.env.CLUSTER_MAX_DEPTH ?? '8');
const client = createRedisConnection({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', name: `cluster-${replica}` });
await client.connect();
// Tasks and event logs on Redis or PostgreSQL (CLUSTER_BACKEND); budget and slots on Redis.
const state = replicaState(parseBackend(process.env.CLUSTER_BACKEND), { client, keyPrefix }, process.env);

// The replicas are one agent: one AgentID, and one budget, one set of concurrency slots in Redis.
// The tree is that agent delegating to itself through its replicas, so it is allowlisted for
// revisits and the depth limit is what stops the recursion.
const budget = createRedisBudgetLedger({ client, keyPrefix, maxUsdPerMinute });
const slots = createRedisConcurrencySlots({ client, keyPrefix });
const governor = createGovernor({
  selfAgentId: AGENT_ID,
  budget,
  recursion: createRecursionPolicy({ maxCallDepth, revisitAllowlist: [AGENT_ID] }),
  // A task may cost at most a tree node's $0.01; a caller runs at most 16 tasks of a skill at once, over all replicas.
  policy: createTaskPolicyEngine({ default: { maxCostUsd: TREE_NODE_USD, maxConcurrency: 16 }, slots }),
  estimateCost: ({ skill }) => (skill === 'tree' ? TREE_NODE_USD : undefined),
});

let peers: string[] = [];
const clients = new Map<string, A2AClient>();
let peerCursor = Math.floor(Math.random() * 3);
/** The next replica, round robin, through the A2A client (one per peer). */
function nextPeer(): A2AClient {
  const url = peers[peerCursor++ % peers.length] as string;
  let peer = clients.get(url);
  if (peer === undefined) {
    // A whole subtree answers one blocking call: allow it time. Loopback peers are this demo's own replicas.
    peer = createA2AClient({ baseUrl: url, allowInsecureLoopback: true, timeoutMs: 120_000, retry: { retries: 0 } });
    clients.set(url, peer);
  }
  return peer;
}

const executor: AgentExecutor = {
  async execute(context, events) {
    const t = createTaskUpdater(context, events);
    const meta = (context.message.metadata ?? {}) as Record<string, unknown>;
    t.submit();
    t.startWork();
    if (context.skillId === 'chunks') {
      // Streams `count` chunks, one every `everyMs`; a cancel aborts the signal.
      const count = Number(meta.count ?? 20);
      for (let i = 0; i < count; i++) {
        await new Promise((resolve) => setTimeout(resolve, Number(meta.everyMs ?? 50)));
        if (context.signal.aborted) {
          await client.sendCommand(['SET', `${keyPrefix}demo:aborted:${context.taskId}`, replica, 'PX', '600000']);
          return;
        }
        t.addArtifact([{ text: `chunk-${i}` }], { artifactId: 'chunks', append: i > 0, lastChunk: i === count - 1 });
      }
      t.complete();
      return;
    }
    if (context.skillId === 'tree') {
      // ADR-159 test 3 over replicas: this node's work costs $0.01 (metered by the governor when the
      // task ends), then it delegates two children, one after another, each to the next replica
      // with its own lineage; the receiving replica's governor refuses past the budget or the depth.
      const lineage = context.taskContext;
      const depth = lineage?.depth ?? 0;
      const node: TreeNode = { replica, depth, outcome: 'done', children: [] };
      const levels = Number(meta.levels ?? 10);
      for (let i = 0; i < 2 && lineage !== undefined && depth + 1 < levels && !context.signal.aborted; i++) {
        try {
          const reply = await nextPeer().sendMessage(
            {
              message: {
                messageId: globalThis.crypto.randomUUID(),
                role: 'ROLE_USER',
                parts: [{ text: `subtask ${i + 1}` }],
                metadata: { skillId: 'tree', levels },
              },
            },
            { context: { ...lineage, parentTaskId: context.taskId }, signal: context.signal },
          );
          const child = reply.task?.artifacts?.find((a) => a.artifactId === 'tree')?.parts[0]?.data as { node?: TreeNode } | undefined;
          node.children.push(child?.node ?? { replica: '?', depth: depth + 1, outcome: 'rejected', reason: 'NO_TREE', children: [] });
        } catch (error) {
          const reason = A2AError.isInstance(error) ? (error as A2AError).reason : error instanceof Error ? error.name : 'ERROR';
          node.children.push({ replica: '-', depth: depth + 1, outcome: 'rejected', reason, children: [] });
        }
      }
      events.reportUsage({ usd: TREE_NODE_USD });
      t.addArtifact([{ data: { node } }], { artifactId: 'tree', lastChunk: true });
      t.complete();
      return;
    }
    t.addArtifact([{ text: replica }], { artifactId: 'served-by', lastChunk: true });
    t.complete();
  },
};

const http = createServer();
http.listen(0, '127.0.0.1', () => {
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const server = createA2AServer({
    card: createAgentCard({
      baseUrl: url,
      name: 'cluster agent',
      description: 'one of three replicas on one Redis',
      skills: [
        { id: 'echo', name: 'Echo', description: 'names the replica that served it', tags: [] },
        { id: 'chunks', name: 'Chunks', description: 'streams paced chunks', tags: [] },
        { id: 'tree', name: 'Tree', description: 'costed work that delegates two subtasks', tags: [] },
      ],
      capabilities: { streaming: true },
    }),
    executor,
    store: state.store,
    eventBus: state.eventBus,
    governance: governor,
  });
  http.on('request', createNodeHttpHandler(server));
  const stop = async (): Promise<void> => {
    await server.close();
    await state.close();
    budget.close();
    slots.close();
    http.closeAllConnections();
    http.close();
    client.destroy();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('disconnect', () => void stop());
  process.send?.({ type: 'ready', url });
});
process.on('message', (message: { type?: string; peers?: string[] }) => {
  if (message.type === 'peers') peers = message.peers ?? [];
});
