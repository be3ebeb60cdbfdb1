import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { migrate } from '@a2aplane/a2a-postgres';
import pg from 'pg';
import { startServer } from '../lib/children.js';
import { goalTable, median, num, ratio, table } from '../lib/format.js';
import { measureServer, medianOf, roundRatios, type ServerRun } from '../lib/load.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

export const POSTGRES_URL = process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Task mode on one PostgreSQL: ours in memory, ours on PostgreSQL, the official SDK's DatabaseTaskStore. */
const TARGETS = [
  { id: 'ours', server: 'ours', args: [], label: 'ours on node:http, in-memory store (reference)' },
  {
    id: 'ours-postgres',
    server: 'ours',
    args: ['--postgres'],
    label: 'ours on node:http, PostgreSQL task store + event bus (@a2aplane/a2a-postgres)',
  },
  {
    id: 'official-postgres',
    server: 'official',
    args: ['--postgres'],
    label: 'official @a2a-js/sdk (express), DatabaseTaskStore on PostgreSQL (Kysely + pg)',
  },
];

/** The official store's table, as its own `a2a-db upgrade` renders it for PostgreSQL. */
function officialSchemaSql(): string {
  // The SDK exports no ./package.json: its CLI is found next to its main entry (dist/index.js).
  const sdk = dirname(createRequire(import.meta.url).resolve('@a2a-js/sdk'));
  const args = [join(sdk, 'cli/a2a_db.js'), 'upgrade', '--sql', '--dialect', 'postgres', '--store', 'tasks'];
  return execFileSync(process.execPath, args, { encoding: 'utf8' });
}

export async function runPostgres(options: RunOptions): Promise<SuiteResult> {
  const rounds = options.quick ? 2 : 3;
  const timing = { warmupSeconds: 2, warmupRequests: 3_000, warmupMaxSeconds: 10, seconds: options.quick ? 2 : 3 };
  const admin = new pg.Pool({ connectionString: POSTGRES_URL, max: 2 });
  admin.on('error', () => undefined);
  const tag = randomBytes(4).toString('hex');
  const [ours, official] = [`bench_ours_${tag}`, `bench_official_${tag}`];
  const runs: ServerRun[] = [];
  try {
    await migrate(admin, { schema: ours });
    await admin.query(`CREATE SCHEMA "${official}"; SET search_path TO "${official}"; ${officialSchemaSql()}; RESET search_path`);
    for (let round = 1; round <= rounds; round++) {
      for (const t of round % 2 ? TARGETS : [...TARGETS].reverse()) {
        // Every run starts from empty tables: no run pays for another's rows.
        await admin.query(`TRUNCATE "${ours}".tasks, "${ours}".task_logs, "${ours}".task_events, "${ours}".send_keys CASCADE`);
        await admin.query(`TRUNCATE "${official}".tasks`);
        const env = { ...process.env, POSTGRES_URL, BENCH_PG_SCHEMA: t.server === 'ours' ? ours : official };
        const start = () => startServer(t.server, ['--mode', 'task', ...t.args], { env });
        runs.push(await measureServer(start, { round, mode: 'task', target: t.id }, timing));
      }
    }
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS "${ours}", "${official}" CASCADE`).catch(() => undefined);
    await admin.end();
  }
  const vsOfficial = median(roundRatios(runs, 'ours-postgres', 'official-postgres'));
  const vsMemory = median(roundRatios(runs, 'ours-postgres', 'ours'));
  const markdown = [
    `Task mode (submitted -> working -> one artifact -> completed; the blocking \`SendMessage\` returns the completed task) against one PostgreSQL at POSTGRES_URL (${num(rounds)} interleaved rounds, a fresh server process and empty tables per run, warm-up of ${timing.warmupSeconds} s and at least ${timing.warmupRequests} requests, then ${timing.seconds} s measured; autocannon, 50 connections). Both PostgreSQL servers use a pool of 10 connections; ours writes the task and its events (the durable event log) in one statement per write, the official store writes the task row only (it keeps no event log). PostgreSQL runs with its defaults (fsync, synchronous_commit on) on the same machine.`,
    '',
    table(
      ['server', 'req/s (median)', 'p50 ms', 'p99 ms', 'valid runs'],
      TARGETS.map((t) => [
        t.label,
        num(medianOf(runs, t.id, (r) => r.requestsPerSecond)),
        num(
          medianOf(runs, t.id, (r) => r.latencyP50Ms),
          1,
        ),
        num(
          medianOf(runs, t.id, (r) => r.latencyP99Ms),
          1,
        ),
        `${runs.filter((r) => r.target === t.id && r.valid).length}/${rounds}`,
      ]),
    ),
    '',
    goalTable([
      ['task: ours on PostgreSQL >= 2x official DatabaseTaskStore on PostgreSQL', ratio(vsOfficial), '>= 2x', vsOfficial >= 2],
      ['task: ours on PostgreSQL >= 0.3x ours in memory', ratio(vsMemory), '>= 0.3x', vsMemory >= 0.3],
    ]),
  ].join('\n');
  return { title: 'Task mode on PostgreSQL', markdown, data: { runs, vsOfficial, vsMemory } };
}
