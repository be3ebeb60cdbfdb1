// One replica of the cluster agent: a child process the demo forks (and kills). Everything it
// knows about tasks lives in Redis; it tells its parent its URL over IPC.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRedisBudgetLedger, createRedisConnection, createRedisTaskEventBus, createRedisTaskStore } from '@a2aplane/a2a-redis';
import {
  type AgentExecutor,
  createA2AServer,
  createAgentCard,
  createNodeHttpHandler,
  createTaskUpdater,
} from '@a2aplane/a2a-server-express';
import { BudgetExceededError } from '@a2aplane/a2a-types';

const replica = process.env.REPLICA_ID ?? 'replica';
const keyPrefix = process.env.CLUSTER_PREFIX ?? 'cluster-demo:';
const peers = (): string[] => (process.env.CLUSTER_PEERS ?? '').split(',').filter(Boolean);
const maxUsdPerMinute = Number(process.env.CLUSTER_MAX_USD ?? '2');
const maxCallDepth = Number(process.env.CLUSTER_MAX_DEPTH ?? '8');
const client = createRedisConnection({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', name: `cluster-${replica}` });
await client.connect();
const ledger = createRedisBudgetLedger({ client, keyPrefix, maxUsdPerMinute });

/** A delegation node as the tree skill reports it. */
interface TreeNode {
  replica: string;
  depth: number;
  outcome: 'done' | 'rejected';
  reason?: string;
  children: TreeNode[];
}

let peerCursor = Math.floor(Math.random() * 3);
/** Sends a blocking SendMessage to the next replica (round robin over the cluster) and returns its task. */
async function delegate(text: string, metadata: Record<string, unknown>): Promise<Record<string, unknown>> {
  const list = peers();
  const url = list[peerCursor++ % list.length] as string;
  const response = await fetch(`${url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }], metadata } },
    }),
  });
  return (await response.json()) as Record<string, unknown>;
}

const executor: AgentExecutor = {
  async execute(context, events) {
    const t = createTaskUpdater(context, events);
    const meta = (context.message.metadata ?? {}) as Record<string, unknown>;
    const skill = String(meta.skill ?? 'echo');
    t.submit();
    t.startWork();
    if (skill === 'chunks') {
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
    if (skill === 'tree') {
      // ADR-159 test 3 over replicas: pay for this node on the shared ledger, then delegate two
      // children (to the next replicas) until the depth limit; the budget cuts the rest.
      const depth = Number(meta.depth ?? 0);
      const node: TreeNode = { replica, depth, outcome: 'done', children: [] };
      try {
        const ticket = await ledger.acquire({ caller: 'cluster-demo', estimatedUsd: 0.01 });
        await ledger.meter(ticket, { usd: 0.01, traceId: String(meta.traceId ?? '') });
      } catch (error) {
        node.outcome = 'rejected';
        node.reason = BudgetExceededError.isInstance(error) ? 'BUDGET_EXCEEDED' : 'ERROR';
      }
      const levels = Number(meta.levels ?? 10);
      if (node.outcome === 'done' && depth + 1 < levels) {
        node.children = await Promise.all(
          [0, 1].map(async () => {
            if (depth + 1 > maxCallDepth)
              return { replica: '-', depth: depth + 1, outcome: 'rejected' as const, reason: 'RECURSION_LIMIT', children: [] };
            const reply = await delegate('subtask', { ...meta, depth: depth + 1 });
            const task = (reply.result as { task?: { artifacts?: { parts: { data?: { node: TreeNode } }[] }[] } } | undefined)?.task;
            return (
              task?.artifacts?.[0]?.parts[0]?.data?.node ?? {
                replica: '?',
                depth: depth + 1,
                outcome: 'rejected' as const,
                reason: 'ERROR',
                children: [],
              }
            );
          }),
        );
      }
      t.addArtifact([{ data: { node } }], { artifactId: 'tree', lastChunk: true });
      t.complete();
      return;
    }
    t.addArtifact([{ text: replica }], { artifactId: 'served-by', lastChunk: true });
    t.complete();
  },
};

const server = createA2AServer({
  card: createAgentCard({
    baseUrl: 'http://127.0.0.1',
    name: 'cluster agent',
    description: 'one of three replicas on one Redis',
    skills: [{ id: 'work', name: 'Work', description: 'echo, chunks or tree', tags: [] }],
    capabilities: { streaming: true },
  }),
  executor,
  store: createRedisTaskStore({ client, keyPrefix }),
  eventBus: createRedisTaskEventBus({ client, keyPrefix }),
});
const http = createServer(createNodeHttpHandler(server));
http.listen(0, '127.0.0.1', () => {
  process.send?.({ type: 'ready', url: `http://127.0.0.1:${(http.address() as AddressInfo).port}` });
});
process.on('message', (message: { type?: string; peers?: string[] }) => {
  if (message.type === 'peers') process.env.CLUSTER_PEERS = (message.peers ?? []).join(',');
});
const stop = async (): Promise<void> => {
  await server.close();
  http.closeAllConnections();
  http.close();
  client.destroy();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('disconnect', () => void stop());
