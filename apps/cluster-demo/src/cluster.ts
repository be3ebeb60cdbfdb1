import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { parseServerSentEvents } from '@a2aplane/a2a-client';
import { createRedisBudgetLedger, createRedisConnection } from '@a2aplane/a2a-redis';
import { type ClusterBackend, POSTGRES_URL_DEFAULT, preparePostgres } from './backend.js';
import { TREE_NODE_USD, type TreeNode } from './tree.js';

type Json = Record<string, unknown>;

export interface ClusterOptions {
  redisUrl?: string;
  /** Where tasks and event logs live: `redis` (default) or `postgres` (a schema of the run's own at `postgresUrl`). */
  backend?: ClusterBackend;
  /** Default `POSTGRES_URL`, else `postgres://postgres@127.0.0.1:5432/test`. */
  postgresUrl?: string;
  /** The shared budget of the tree part, USD per minute (every replica's governor enforces it on one Redis ledger). Default 2. */
  maxUsdPerMinute?: number;
  /** The recursion guard of every replica's governor: a task at this depth runs, one deeper is refused. Default 8. */
  maxCallDepth?: number;
  onProgress?: (line: string) => void;
}

export interface ClusterReport {
  passed: boolean;
  spread: { servedBy: Record<string, number>; readOnOtherReplica: number; sent: number; passed: boolean };
  resume: { beforeKill: number; afterResume: number; lost: number; duplicated: number; killed: string; resumedOn: string; passed: boolean };
  cancel: { state: string; abortedOn: string | undefined; ranOn: string; canceledVia: string; passed: boolean };
  tree: {
    levels: number;
    maxCallDepth: number;
    maxUsdPerMinute: number;
    /** Tree tasks that ran (the nodes the governors admitted). */
    tasks: number;
    /** What the shared ledger in Redis metered in its window: the spend of every replica together. */
    spendUsd: number;
    byReplica: Record<string, number>;
    /** Refused delegations by the governor's reason. */
    rejected: Record<string, number>;
    /** Depth of the deepest task that ran. */
    deepest: number;
    /** Depths at which the governors refused with RECURSION_LIMIT. */
    recursionRefusedAt: number[];
    passed: boolean;
  };
}

interface Replica {
  id: string;
  url: string;
  child: ChildProcess;
}

const replicaEntry = fileURLToPath(new URL('./replica.ts', import.meta.url));

async function post(
  url: string,
  method: string,
  params: Json,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(`${url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params }),
    ...(signal ? { signal } : {}),
  });
}
const rpc = async (url: string, method: string, params: Json): Promise<Json> => (await (await post(url, method, params)).json()) as Json;
const message = (text: string, metadata: Json): Json => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }], metadata });

/** The JSON-RPC results of an SSE response, with their event ids (the client's SSE parser). */
async function* sse(response: Response): AsyncGenerator<{ id: string | undefined; result: Json }> {
  for await (const event of parseServerSentEvents(response.body as ReadableStream<Uint8Array>)) {
    yield { id: event.id, result: ((JSON.parse(event.data) as Json).result ?? {}) as Json };
  }
}

type TextParts = { parts?: { text?: string }[] };
const texts = (artifact: TextParts | undefined): string[] =>
  (artifact?.parts ?? []).map((part) => part.text).filter((text): text is string => text !== undefined);

/**
 * The chunks a stream event carries: an artifact update's parts, or, in the task snapshot a
 * subscription starts with, the chunks the task already holds (published before the subscriber
 * arrived; the live events after it hold only newer ones).
 */
const chunksOf = (result: Json): string[] => {
  const update = result.artifactUpdate as { artifact?: TextParts } | undefined;
  if (update !== undefined) return texts(update.artifact);
  const task = result.task as { artifacts?: (TextParts & { artifactId?: string })[] } | undefined;
  return texts(task?.artifacts?.find((artifact) => artifact.artifactId === 'chunks'));
};

/** Starts the three replicas, runs the four parts, stops everything (also on failure). */
export async function runCluster(options: ClusterOptions = {}): Promise<ClusterReport> {
  const redisUrl = options.redisUrl ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `cluster-demo:${randomUUID()}:`;
  const maxUsdPerMinute = options.maxUsdPerMinute ?? 2;
  const maxCallDepth = options.maxCallDepth ?? 8;
  const progress = options.onProgress ?? (() => {});
  const replicas = new Map<string, Replica>();
  const admin = createRedisConnection({ url: redisUrl });
  await admin.connect();
  const backend = options.backend ?? 'redis';
  const postgresUrl = options.postgresUrl ?? process.env.POSTGRES_URL ?? POSTGRES_URL_DEFAULT;
  const postgres = backend === 'postgres' ? await preparePostgres(postgresUrl) : undefined;
  if (postgres) progress(`tasks and event logs in PostgreSQL (schema ${postgres.schema}); budget and slots in Redis`);

  const start = (id: string): Promise<Replica> =>
    new Promise((resolve, reject) => {
      const child = fork(replicaEntry, [], {
        execArgv: ['--conditions=@a2aplane/source', '--import', 'tsx'],
        env: {
          ...process.env,
          REPLICA_ID: id,
          CLUSTER_PREFIX: prefix,
          REDIS_URL: redisUrl,
          CLUSTER_BACKEND: backend,
          ...(postgres ? { POSTGRES_URL: postgresUrl, CLUSTER_SCHEMA: postgres.schema, CLUSTER_PUSH_KEY: postgres.pushKey } : {}),
          CLUSTER_MAX_USD: String(maxUsdPerMinute),
          CLUSTER_MAX_DEPTH: String(maxCallDepth),
        },
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      child.once('exit', (code) => reject(new Error(`${id} exited with ${code} before it was ready`)));
      child.once('message', (m: { type: string; url: string }) => {
        const replica = { id, url: m.url, child };
        replicas.set(id, replica);
        progress(`${id} listening on ${m.url} (pid ${child.pid})`);
        resolve(replica);
      });
    });
  const sharePeers = (): void => {
    const urls = [...replicas.values()].map((r) => r.url);
    for (const r of replicas.values()) r.child.send({ type: 'peers', peers: urls });
  };

  try {
    const [r1, r2, r3] = await Promise.all([start('replica-1'), start('replica-2'), start('replica-3')]);
    sharePeers();
    const all = [r1, r2, r3];

    // 1. The client spreads calls over the replicas; any replica reads any task.
    progress('part 1: 30 calls spread over the three replicas, each task read back on another one');
    const servedBy: Record<string, number> = {};
    let readOnOther = 0;
    for (let i = 0; i < 30; i++) {
      const target = all[i % 3] as Replica;
      const sent = await rpc(target.url, 'SendMessage', { message: message('hello', { skillId: 'echo' }) });
      const task = (sent.result as { task: { id: string; artifacts: { parts: { text: string }[] }[] } }).task;
      const by = task.artifacts[0]?.parts[0]?.text ?? '?';
      servedBy[by] = (servedBy[by] ?? 0) + 1;
      const other = all[(i + 1) % 3] as Replica;
      const read = await rpc(other.url, 'GetTask', { id: task.id });
      if ((read.result as { status?: { state?: string } } | undefined)?.status?.state === 'TASK_STATE_COMPLETED') readOnOther += 1;
    }
    const spread = {
      servedBy,
      readOnOtherReplica: readOnOther,
      sent: 30,
      passed: readOnOther === 30 && all.every((r) => servedBy[r.id] === 10),
    };

    // 2. A stream read on replica 1, replica 1 killed mid-stream, resumed on replica 2.
    progress('part 2: a stream read on replica-1; replica-1 is killed mid-stream; the client resumes on replica-2');
    const count = 30;
    const launched = await rpc(r3.url, 'SendMessage', {
      message: message('stream', { skillId: 'chunks', count, everyMs: 40 }),
      configuration: { returnImmediately: true },
    });
    const taskId = (launched.result as { task: { id: string } }).task.id;
    // Bounded waits: a broken cluster fails the demo instead of hanging it.
    const first = await post(r1.url, 'SubscribeToTask', { id: taskId }, {}, AbortSignal.timeout(30_000));
    const seen: string[] = [];
    let lastId: string | undefined;
    for await (const event of sse(first)) {
      lastId = event.id ?? lastId;
      seen.push(...chunksOf(event.result));
      if (seen.length >= 8) break;
    }
    const beforeKill = seen.length;
    r1.child.kill('SIGKILL');
    await new Promise((resolve) => r1.child.once('exit', resolve));
    replicas.delete(r1.id);
    progress(`  killed replica-1 after ${beforeKill} chunks (last event id ${lastId}); resuming on replica-2`);
    const resumed = await post(
      r2.url,
      'SubscribeToTask',
      { id: taskId },
      lastId ? { 'Last-Event-ID': lastId } : {},
      AbortSignal.timeout(30_000),
    );
    for await (const event of sse(resumed)) {
      seen.push(...chunksOf(event.result));
    }
    const expected = Array.from({ length: count }, (_, i) => `chunk-${i}`);
    const unique = new Set(seen);
    const resume = {
      beforeKill,
      afterResume: seen.length - beforeKill,
      lost: expected.filter((c) => !unique.has(c)).length,
      duplicated: seen.length - unique.size,
      killed: r1.id,
      resumedOn: r2.id,
      passed: false,
    };
    resume.passed = resume.lost === 0 && resume.duplicated === 0 && seen.join() === expected.join();

    // 3. A cancel sent to replica 3 stops the executor running on replica 2.
    progress('part 3: a long task runs on replica-2; CancelTask is sent to replica-3');
    const long = await rpc(r2.url, 'SendMessage', {
      message: message('long', { skillId: 'chunks', count: 400, everyMs: 25 }),
      configuration: { returnImmediately: true },
    });
    const longId = (long.result as { task: { id: string } }).task.id;
    await new Promise((resolve) => setTimeout(resolve, 300));
    const canceled = await rpc(r3.url, 'CancelTask', { id: longId });
    const state = (canceled.result as { status?: { state?: string } } | undefined)?.status?.state ?? JSON.stringify(canceled.error);
    let abortedOn: string | undefined;
    for (let i = 0; i < 100 && abortedOn === undefined; i++) {
      const value = await admin.get(`${prefix}demo:aborted:${longId}`);
      abortedOn = value ?? undefined;
      if (abortedOn === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const cancel = { state, abortedOn, ranOn: r2.id, canceledVia: r3.id, passed: state === 'TASK_STATE_CANCELED' && abortedOn === r2.id };

    // 4. ADR-159 acceptance test 3 over the replicas (replica-1 restarted): every replica's governor
    // admits on one Redis ledger and refuses past the depth limit; the tree only reports what happened.
    progress('part 4: replica-1 restarts; a 10-level binary delegation tree spreads over the replicas, governed on one shared budget');
    await start('replica-1');
    sharePeers();
    const levels = 10;
    const root = await rpc(r2.url, 'SendMessage', { message: message('plan', { skillId: 'tree', levels }) });
    const node = (root.result as { task?: { artifacts?: { parts: { data?: { node?: TreeNode } }[] }[] } } | undefined)?.task?.artifacts?.[0]
      ?.parts[0]?.data?.node;
    if (node === undefined) throw new Error(`the tree's root returned no tree: ${JSON.stringify(root.error ?? root.result)}`);
    const byReplica: Record<string, number> = {};
    const rejected: Record<string, number> = {};
    const recursionDepths = new Set<number>();
    let tasks = 0;
    let deepest = 0;
    const visit = (n: TreeNode): void => {
      if (n.outcome === 'done') {
        tasks += 1;
        deepest = Math.max(deepest, n.depth);
        byReplica[n.replica] = (byReplica[n.replica] ?? 0) + 1;
      } else {
        rejected[n.reason ?? '?'] = (rejected[n.reason ?? '?'] ?? 0) + 1;
        if (n.reason === 'RECURSION_LIMIT') recursionDepths.add(n.depth);
      }
      n.children.forEach(visit);
    };
    visit(node);
    // The spend of all replicas, as the shared ledger metered it (each task is metered as it ends, just after its answer).
    const ledger = createRedisBudgetLedger({ client: admin, keyPrefix: prefix, maxUsdPerMinute });
    let window = await ledger.refresh();
    for (let i = 0; i < 100 && window.inFlight > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      window = await ledger.refresh();
    }
    ledger.close();
    const spendUsd = Math.round((window.window?.usd ?? 0) * 1e9) / 1e9;
    const recursionRefusedAt = [...recursionDepths].sort((a, b) => a - b);
    const tree = {
      levels,
      maxCallDepth,
      maxUsdPerMinute,
      tasks,
      spendUsd,
      byReplica,
      rejected,
      deepest,
      recursionRefusedAt,
      passed:
        spendUsd <= maxUsdPerMinute &&
        Math.abs(spendUsd - tasks * TREE_NODE_USD) < 1e-9 &&
        (rejected.BUDGET_EXCEEDED ?? 0) > 0 &&
        deepest === maxCallDepth &&
        recursionRefusedAt.join() === String(maxCallDepth + 1) &&
        Object.keys(byReplica).length === 3,
    };
    return { passed: spread.passed && resume.passed && cancel.passed && tree.passed, spread, resume, cancel, tree };
  } finally {
    for (const r of replicas.values()) {
      r.child.kill('SIGTERM');
    }
    await Promise.all(
      [...replicas.values()].map((r) => (r.child.exitCode === null ? new Promise((resolve) => r.child.once('exit', resolve)) : undefined)),
    );
    for await (const keys of admin.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) if (keys.length > 0) await admin.unlink(keys);
    admin.destroy();
    await postgres?.drop();
  }
}
