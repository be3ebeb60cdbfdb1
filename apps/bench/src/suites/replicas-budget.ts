// N governed replicas sharing one global budget (issue 19): each replica is its own server, its
// own Governor and its own Redis connection; 2,000 concurrent SendMessage requests are spread
// over them. "Before" gives each replica an in-memory ledger (N budgets); "after" one Redis ledger.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type BudgetLedger, createInMemoryBudgetLedger, readTaskContext, createGovernor } from '@a2aplane/a2a-governance';
import { createRedisBudgetLedger, type RedisBudgetLedger } from '@a2aplane/a2a-redis';
import { createA2AServer, createAgentCard, createNodeHttpHandler, createTaskUpdater } from '@a2aplane/a2a-server-express';
import { createClient } from 'redis';
import { num, passFail, table } from '../lib/format.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

const REPLICAS = 3;
const REQUESTS = 2000;
const CAP_USD = 1;
const ESTIMATE_USD = 0.01;

type RedisClient = ReturnType<typeof createClient>;

interface Row {
  ledger: string;
  /** What a task reports it spent, against its $0.01 estimate. */
  spendPerTask: string;
  completed: number;
  /** Ended FAILED mid-task (a budget cut). */
  cut: number;
  shed: number;
  other: number;
  spendUsd: number;
  overshootUsd: number;
  ms: number;
}

/** One replica: a governed server on 127.0.0.1 whose executor reports `steps` of USD, then completes. */
async function startReplica(index: number, budget: BudgetLedger, steps: number[]): Promise<{ url: string; close(): Promise<void> }> {
  const governor = createGovernor({ selfAgentId: `replica-${index}`, budget, estimateCost: () => ESTIMATE_USD });
  const a2a = createA2AServer({
    card: createAgentCard({
      baseUrl: 'http://127.0.0.1',
      name: `replica ${index}`,
      description: 'spends',
      skills: [{ id: 'spend', name: 'spend', description: 'spends', tags: [] }],
      capabilities: {},
    }),
    executor: {
      async execute(context, events) {
        const task = createTaskUpdater(context, events);
        task.submit();
        task.startWork('working');
        for (const usd of steps) {
          events.reportUsage({ usd });
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
        task.complete();
      },
    },
    governance: { admit: (input) => governor.admit(input), readTaskContext },
  });
  const http: Server = createServer(createNodeHttpHandler(a2a, { heartbeatMs: 0 }));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/a2a/jsonrpc`,
    async close() {
      await a2a.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

async function send(url: string, id: number): Promise<'completed' | 'cut' | 'shed' | 'other'> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'SendMessage',
      params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'spend' }] } },
    }),
  });
  const body = (await response.json()) as {
    result?: { task?: { status?: { state?: string } } };
    error?: { data?: Array<{ reason?: string }> };
  };
  const state = body.result?.task?.status?.state;
  if (state === 'TASK_STATE_COMPLETED') return 'completed';
  if (state === 'TASK_STATE_FAILED') return 'cut';
  const reason = body.error?.data?.find((d) => d.reason)?.reason;
  return reason === 'BUDGET_EXCEEDED' ? 'shed' : 'other';
}

async function scenario(kind: 'in-memory' | 'redis', steps: number[], clients: RedisClient[], keyPrefix: string): Promise<Row> {
  const ledgers: BudgetLedger[] = [];
  for (let i = 0; i < REPLICAS; i++) {
    ledgers.push(
      kind === 'redis'
        ? createRedisBudgetLedger({ client: clients[i]!, keyPrefix, maxUsdPerMinute: CAP_USD })
        : createInMemoryBudgetLedger({ maxUsdPerMinute: CAP_USD }),
    );
  }
  const replicas = await Promise.all(ledgers.map((ledger, i) => startReplica(i, ledger, steps)));
  const started = performance.now();
  const outcomes = await Promise.all(Array.from({ length: REQUESTS }, (_, i) => send(replicas[i % REPLICAS]!.url, i)));
  const ms = performance.now() - started;
  // Let finish() meter every task (it runs just after the response).
  await new Promise((resolve) => setTimeout(resolve, 300));
  let spendUsd = 0;
  if (kind === 'redis') spendUsd = (await (ledgers[0] as RedisBudgetLedger).refresh()).window?.usd ?? 0;
  else for (const ledger of ledgers) spendUsd += ledger.snapshot().window?.usd ?? 0;
  for (const ledger of ledgers) (ledger as Partial<RedisBudgetLedger>).close?.();
  await Promise.all(replicas.map((replica) => replica.close()));
  const count = (outcome: string) => outcomes.filter((o) => o === outcome).length;
  return {
    ledger: kind === 'redis' ? `one Redis ledger shared by ${REPLICAS}` : `an in-memory ledger per replica (${REPLICAS})`,
    spendPerTask: steps.length === 1 ? `$${steps[0]} (= estimate)` : `${steps.length} x $${steps[0]} (over the estimate)`,
    completed: count('completed'),
    cut: count('cut'),
    shed: count('shed'),
    other: count('other'),
    spendUsd: Math.round(spendUsd * 1e9) / 1e9,
    overshootUsd: Math.max(0, Math.round((spendUsd - CAP_USD) * 1e9) / 1e9),
    ms,
  };
}

export async function runReplicasBudget(_options: RunOptions): Promise<SuiteResult> {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const clients: RedisClient[] = [];
  const keyPrefixes: string[] = [];
  try {
    for (let i = 0; i < REPLICAS; i++) {
      const client = createClient({ url, socket: { connectTimeout: 2000, reconnectStrategy: false } });
      client.on('error', () => undefined);
      clients.push(client);
      await client.connect();
    }
    const rows: Row[] = [];
    for (const [kind, steps] of [
      ['in-memory', [ESTIMATE_USD]],
      ['redis', [ESTIMATE_USD]],
      ['redis', [0.006, 0.006]],
    ] as const) {
      const keyPrefix = `a2a-bench:${process.pid}:${randomUUID()}:`;
      keyPrefixes.push(keyPrefix);
      rows.push(await scenario(kind, [...steps], clients, keyPrefix));
    }
    const markdown = [
      `${REPLICAS} governed replicas (each its own server on 127.0.0.1, Governor and Redis connection, in the bench process), one global budget of $${CAP_USD}/min, a $${ESTIMATE_USD} estimate per task, ${num(REQUESTS)} concurrent JSON-RPC SendMessage requests spread round-robin. Spend is what the ledger metered in the window. Goal: total spend never above the cap (overshoot 0).`,
      '',
      table(
        [
          'ledger',
          'spend per task',
          'completed',
          'cut mid-task (FAILED)',
          'shed (BUDGET_EXCEEDED)',
          'other',
          'total spend',
          'cap',
          'overshoot',
          'goal',
          'wall time',
        ],
        rows.map((r) => [
          r.ledger,
          r.spendPerTask,
          num(r.completed),
          num(r.cut),
          num(r.shed),
          num(r.other),
          `$${r.spendUsd}`,
          `$${CAP_USD}`,
          `$${r.overshootUsd}`,
          r.spendPerTask.includes('over') ? 'bounded (see below)' : passFail(r.overshootUsd === 0),
          `${num(r.ms)} ms`,
        ]),
      ),
      '',
      'The in-memory row is the "before": each replica enforces its own window, so N replicas spend up to N caps. With tasks that spend more than their estimate, the async `reserveMore` cuts a task (FAILED, BUDGET_EXCEEDED) when the shared window has no room; a cut only stops what is still running (a task that completes before Redis answers keeps its spend), and spend already reported is metered, so the bound is the cap plus at most one reporting step per task cut or racing its cut (the in-memory ledger has the same bound: spend reported is spend made).',
    ].join('\n');
    return { title: 'N replicas sharing one budget (Redis)', markdown, data: rows };
  } finally {
    for (const prefix of keyPrefixes) {
      const admin = clients[0];
      if (admin?.isReady)
        for await (const keys of admin.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) if (keys.length > 0) await admin.del(keys);
    }
    for (const client of clients) if (client.isOpen) client.destroy();
  }
}
