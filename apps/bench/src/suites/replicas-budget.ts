// N governed replicas sharing one global budget (issue 19): each replica is its own server, its
// own Governor and its own Redis connection; 2,000 concurrent SendMessage requests are spread
// over them. "Before" gives each replica an in-memory ledger (N budgets); "after" one Redis ledger.
import { type BudgetLedger, createGovernor, createInMemoryBudgetLedger, readTaskContext } from '@a2aplane/a2a-governance';
import { createRedisBudgetLedger, type RedisBudgetLedger } from '@a2aplane/a2a-redis';
import { createTaskUpdater } from '@a2aplane/a2a-server-express';
import { createClient } from 'redis';
import { postSendMessage, sendMessageParams } from '../lib/fixtures.js';
import { columns, goalTable, num } from '../lib/format.js';
import { listenA2A } from '../lib/listen.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

const REPLICAS = 3;
const REQUESTS = 2000;
const CAP_USD = 1;
const ESTIMATE_USD = 0.01;

type RedisClient = ReturnType<typeof createClient>;

/** One replica: a governed server whose executor reports `steps` of USD, then completes. */
function startReplica(index: number, budget: BudgetLedger, steps: number[]) {
  const governor = createGovernor({ selfAgentId: `replica-${index}`, budget, estimateCost: () => ESTIMATE_USD });
  return listenA2A({
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
}

async function send(url: string): Promise<'completed' | 'cut' | 'shed' | 'other'> {
  const body = await postSendMessage(url, sendMessageParams('spend'));
  const state = body.result?.task?.status?.state;
  if (state === 'TASK_STATE_COMPLETED') return 'completed';
  if (state === 'TASK_STATE_FAILED') return 'cut';
  return body.error?.data?.find((d) => d.reason)?.reason === 'BUDGET_EXCEEDED' ? 'shed' : 'other';
}

async function scenario(kind: 'in-memory' | 'redis', steps: number[], clients: RedisClient[], keyPrefix: string) {
  const ledgers: BudgetLedger[] = clients.map((client) =>
    kind === 'redis'
      ? createRedisBudgetLedger({ client, keyPrefix, maxUsdPerMinute: CAP_USD })
      : createInMemoryBudgetLedger({ maxUsdPerMinute: CAP_USD }),
  );
  const replicas = await Promise.all(ledgers.map((ledger, i) => startReplica(i, ledger, steps)));
  const started = performance.now();
  const outcomes = await Promise.all(Array.from({ length: REQUESTS }, (_, i) => send(replicas[i % REPLICAS]!.url)));
  const ms = performance.now() - started;
  // Let finish() meter every task (it runs just after the response).
  await new Promise((resolve) => setTimeout(resolve, 300));
  let spendUsd = 0;
  if (kind === 'redis') spendUsd = (await (ledgers[0] as RedisBudgetLedger).refresh()).window?.usd ?? 0;
  else for (const ledger of ledgers) spendUsd += ledger.snapshot().window?.usd ?? 0;
  for (const ledger of ledgers) (ledger as Partial<RedisBudgetLedger>).close?.();
  await Promise.all(replicas.map((replica) => replica.close()));
  const count = (outcome: string) => outcomes.filter((o) => o === outcome).length;
  spendUsd = Math.round(spendUsd * 1e9) / 1e9;
  return {
    ledger: kind === 'redis' ? `one Redis ledger shared by ${REPLICAS}` : `an in-memory ledger per replica (${REPLICAS})`,
    /** What a task reports it spent, against its $0.01 estimate. */
    spendPerTask: steps.length === 1 ? `$${steps[0]} (= estimate)` : `${steps.length} x $${steps[0]} (over the estimate)`,
    completed: count('completed'),
    cut: count('cut'),
    shed: count('shed'),
    other: count('other'),
    spendUsd,
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
    const rows: Array<Awaited<ReturnType<typeof scenario>>> = [];
    const scenarios = [
      ['in-memory', [ESTIMATE_USD]],
      ['redis', [ESTIMATE_USD]],
      ['redis', [0.006, 0.006]],
    ] as const;
    for (const [kind, steps] of scenarios) {
      keyPrefixes.push(`a2a-bench:${process.pid}:${globalThis.crypto.randomUUID()}:`);
      rows.push(await scenario(kind, [...steps], clients, keyPrefixes.at(-1)!));
    }
    const markdown = [
      `${REPLICAS} governed replicas (each its own server on 127.0.0.1, Governor and Redis connection, in the bench process), one global budget of $${CAP_USD}/min, a $${ESTIMATE_USD} estimate per task, ${num(REQUESTS)} concurrent JSON-RPC SendMessage requests spread round-robin. Spend is what the ledger metered in the window. Goal: total spend never above the cap (overshoot 0).`,
      '',
      columns(rows, [
        ['ledger', (r) => r.ledger],
        ['spend per task', (r) => r.spendPerTask],
        ['completed', (r) => num(r.completed)],
        ['cut mid-task (FAILED)', (r) => num(r.cut)],
        ['shed (BUDGET_EXCEEDED)', (r) => num(r.shed)],
        ['other', (r) => num(r.other)],
        ['total spend', (r) => `$${r.spendUsd}`],
        ['overshoot', (r) => `$${r.overshootUsd}`],
        ['wall time', (r) => `${num(r.ms)} ms`],
      ]),
      '',
      goalTable(
        rows
          .filter((r) => !r.spendPerTask.includes('over'))
          .map((r) => [
            `${r.ledger}, ${r.spendPerTask}: total spend <= the $${CAP_USD} cap`,
            `$${r.spendUsd} (overshoot $${r.overshootUsd})`,
            'overshoot $0',
            r.overshootUsd === 0,
          ]),
      ),
      '',
      'The in-memory row is the "before": each replica enforces its own window, so N replicas spend up to N caps. With tasks that spend more than their estimate (not judged above), the async `reserveMore` cuts a task (FAILED, BUDGET_EXCEEDED) when the shared window has no room; a cut only stops what is still running (a task that completes before Redis answers keeps its spend), and spend already reported is metered, so the bound is the cap plus at most one reporting step per task cut or racing its cut (the in-memory ledger has the same bound: spend reported is spend made).',
    ].join('\n');
    return { markdown, data: rows };
  } finally {
    const admin = clients[0];
    for (const prefix of keyPrefixes) {
      if (admin?.isReady)
        for await (const keys of admin.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) if (keys.length > 0) await admin.del(keys);
    }
    for (const client of clients) if (client.isOpen) client.destroy();
  }
}
