import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { migrate } from '@a2aplane/a2a-postgres';
import pg from 'pg';
import { startServer } from '../lib/children.js';
import { num } from '../lib/format.js';
import { type Goal, judge, runServers, serverReport, type Target } from '../lib/server-suite.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

export const POSTGRES_URL = process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const GOALS: Goal[] = [
  {
    mode: 'task',
    name: 'ours on PostgreSQL / official DatabaseTaskStore on PostgreSQL',
    num: 'ours-postgres',
    den: 'official-postgres',
    min: 2,
  },
  { mode: 'task', name: 'ours on PostgreSQL / ours in memory', num: 'ours-postgres', den: 'ours', min: 0.3 },
];

/** The official store's table, as its own `a2a-db upgrade` renders it for PostgreSQL. */
function officialSchemaSql(): string {
  // The SDK exports no ./package.json: its CLI is found next to its main entry (dist/index.js).
  const sdk = dirname(createRequire(import.meta.url).resolve('@a2a-js/sdk'));
  const args = [join(sdk, 'cli/a2a_db.js'), 'upgrade', '--sql', '--dialect', 'postgres', '--store', 'tasks'];
  return execFileSync(process.execPath, args, { encoding: 'utf8' });
}

/** Task mode on one PostgreSQL: ours in memory, ours on PostgreSQL, the official SDK's DatabaseTaskStore. */
export async function runPostgres(options: RunOptions): Promise<SuiteResult> {
  const rounds = options.quick ? 2 : 3;
  const timing = { warmupSeconds: 2, warmupRequests: 3_000, warmupMaxSeconds: 10, seconds: options.quick ? 2 : 3 };
  const admin = new pg.Pool({ connectionString: POSTGRES_URL, max: 2 });
  admin.on('error', () => undefined);
  const tag = randomBytes(4).toString('hex');
  const [ours, official] = [`bench_ours_${tag}`, `bench_official_${tag}`];
  const target = (id: string, server: string, args: string[], schema: string, label: string): Target => ({
    id,
    label,
    async start(mode) {
      // Every run starts from empty tables: no run pays for another's rows.
      await admin.query(`TRUNCATE "${ours}".tasks, "${ours}".task_logs, "${ours}".task_events, "${ours}".send_keys CASCADE`);
      await admin.query(`TRUNCATE "${official}".tasks`);
      return startServer(server, ['--mode', mode, ...args], { env: { ...process.env, POSTGRES_URL, BENCH_PG_SCHEMA: schema } });
    },
  });
  const targets = [
    target('ours', 'ours', [], ours, 'ours on node:http, in-memory store (reference)'),
    target(
      'ours-postgres',
      'ours',
      ['--store', 'postgres'],
      ours,
      'ours on node:http, PostgreSQL task store + event bus (@a2aplane/a2a-postgres)',
    ),
    target(
      'official-postgres',
      'official',
      ['--store', 'postgres'],
      official,
      'official @a2a-js/sdk (express), DatabaseTaskStore (Kysely + pg)',
    ),
  ];
  try {
    await migrate(admin, { schema: ours });
    await admin.query(`CREATE SCHEMA "${official}"; SET search_path TO "${official}"; ${officialSchemaSql()}; RESET search_path`);
    const runs = await runServers(targets, ['task'], rounds, timing);
    const markdown = [
      `Task mode (submitted -> working -> one artifact -> completed; the blocking \`SendMessage\` returns the completed task) against one PostgreSQL at POSTGRES_URL (${num(rounds)} interleaved rounds, a fresh server process and empty tables per run, warm-up of ${timing.warmupSeconds} s and at least ${timing.warmupRequests} requests, then ${timing.seconds} s measured; autocannon, 50 connections). Both PostgreSQL servers use a pool of 10 connections; ours writes the task and its events (the durable event log) in one statement per write, the official store writes the task row only (it keeps no event log). PostgreSQL runs with its defaults (fsync, synchronous_commit on) on the same machine.`,
      '',
      ...serverReport(runs, targets, GOALS),
    ].join('\n');
    return { markdown, data: { runs, goals: judge(runs, GOALS) } };
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS "${ours}", "${official}" CASCADE`).catch(() => undefined);
    await admin.end();
  }
}
