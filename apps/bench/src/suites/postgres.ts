import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { migrate } from '@a2aplane/a2a-postgres';
import pg from 'pg';
import { startServer } from '../lib/children.js';
import { median, num, passFail, ratio, table } from '../lib/format.js';
import { type LoadResult, load } from '../lib/load.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

const POSTGRES_URL = process.env.POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Task mode on one PostgreSQL: ours in memory, ours on PostgreSQL, the official SDK's DatabaseTaskStore. */
const TARGETS = [
  { id: 'ours', file: 'ours', label: 'ours on node:http, in-memory store (reference)' },
  { id: 'ours-postgres', file: 'ours-postgres', label: 'ours on node:http, PostgreSQL task store + event bus (@a2aplane/a2a-postgres)' },
  {
    id: 'official-postgres',
    file: 'official-postgres',
    label: 'official @a2a-js/sdk (express), DatabaseTaskStore on PostgreSQL (Kysely + pg)',
  },
] as const;
type TargetId = (typeof TARGETS)[number]['id'];

interface Run extends LoadResult {
  round: number;
  target: TargetId;
  error?: string;
}

/** The official store's table, as its own `a2a-db upgrade` renders it for PostgreSQL, in `schema`. */
function officialSchemaSql(): string {
  // The SDK exports no ./package.json: its CLI is found next to its main entry (dist/index.js).
  const sdk = dirname(createRequire(import.meta.url).resolve('@a2a-js/sdk'));
  return execFileSync(process.execPath, [join(sdk, 'cli/a2a_db.js'), 'upgrade', '--sql', '--dialect', 'postgres', '--store', 'tasks'], {
    encoding: 'utf8',
  });
}

export async function runPostgres(options: RunOptions): Promise<SuiteResult> {
  const rounds = options.quick ? 2 : 3;
  const warmupSeconds = 2;
  const warmupRequests = 3_000;
  const measureSeconds = options.quick ? 2 : 3;
  const admin = new pg.Pool({ connectionString: POSTGRES_URL, max: 2 });
  admin.on('error', () => undefined);
  const tag = randomBytes(4).toString('hex');
  const ours = `bench_ours_${tag}`;
  const official = `bench_official_${tag}`;
  const runs: Run[] = [];
  try {
    await migrate(admin, { schema: ours });
    const client = await admin.connect();
    try {
      await client.query('BEGIN');
      await client.query(`CREATE SCHEMA "${official}"`);
      await client.query(`SET LOCAL search_path TO "${official}"`);
      await client.query(officialSchemaSql());
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    process.env.BENCH_PG_OURS_SCHEMA = ours;
    process.env.BENCH_PG_OFFICIAL_SCHEMA = official;
    process.env.POSTGRES_URL = POSTGRES_URL;
    for (let round = 1; round <= rounds; round++) {
      for (const target of round % 2 ? TARGETS : [...TARGETS].reverse()) {
        // Every run starts from empty tables: no run pays for another's rows.
        await admin.query(`TRUNCATE "${ours}".tasks, "${ours}".task_logs, "${ours}".task_events, "${ours}".send_keys CASCADE`);
        await admin.query(`TRUNCATE "${official}".tasks`);
        const server = await startServer(target.file, ['--mode', 'task']);
        try {
          for (let warmed = 0, spent = 0; spent < 10 && (spent < warmupSeconds || warmed < warmupRequests); spent += 1) {
            warmed += (await load(server.url, 'task', 1, 50)).total2xx;
          }
          const result = await load(server.url, 'task', measureSeconds, 50);
          runs.push({ round, target: target.id, ...result });
          process.stdout.write(
            `  task r${round} ${target.id}: ${num(result.requestsPerSecond)} req/s p50 ${result.latencyP50Ms} ms p99 ${result.latencyP99Ms} ms${result.valid ? '' : ' INVALID'}\n`,
          );
        } catch (error) {
          runs.push({ round, target: target.id, ...invalid(), error: error instanceof Error ? error.message : String(error) });
        } finally {
          await server.stop();
        }
      }
    }
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS "${ours}" CASCADE`).catch(() => undefined);
    await admin.query(`DROP SCHEMA IF EXISTS "${official}" CASCADE`).catch(() => undefined);
    await admin.end();
  }

  const roundRatio = (n: TargetId, d: TargetId): number => {
    const values: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      const a = runs.find((r) => r.round === round && r.target === n);
      const b = runs.find((r) => r.round === round && r.target === d);
      if (a?.valid && b?.valid) values.push(a.requestsPerSecond / b.requestsPerSecond);
    }
    return median(values);
  };
  const vsOfficial = roundRatio('ours-postgres', 'official-postgres');
  const vsMemory = roundRatio('ours-postgres', 'ours');
  const goals = {
    'task: ours on PostgreSQL >= 2x official DatabaseTaskStore on PostgreSQL': { value: vsOfficial, goal: '>= 2x', pass: vsOfficial >= 2 },
    'task: ours on PostgreSQL >= 0.3x ours in memory': { value: vsMemory, goal: '>= 0.3x', pass: vsMemory >= 0.3 },
  };
  const rows = TARGETS.map((target) => {
    const mine = runs.filter((r) => r.target === target.id && r.valid);
    return [
      target.label,
      num(median(mine.map((r) => r.requestsPerSecond))),
      num(median(mine.map((r) => r.latencyP50Ms)), 1),
      num(median(mine.map((r) => r.latencyP99Ms)), 1),
      `${mine.length}/${rounds}`,
    ];
  });
  const markdown = [
    `Task mode (submitted -> working -> one artifact -> completed; the blocking \`SendMessage\` returns the completed task) against one PostgreSQL at POSTGRES_URL (${num(rounds)} interleaved rounds, a fresh server process and empty tables per run, warm-up of ${warmupSeconds} s and at least ${warmupRequests} requests, then ${measureSeconds} s measured; autocannon, 50 connections). Both PostgreSQL servers use a pool of 10 connections; ours writes the task and its events (the durable event log) in one statement per write, the official store writes the task row only (it keeps no event log). PostgreSQL runs with its defaults (fsync, synchronous_commit on) on the same machine.`,
    '',
    table(['server', 'req/s (median)', 'p50 ms', 'p99 ms', 'valid runs'], rows),
    '',
    table(
      ['goal', 'measured', 'goal', ''],
      Object.entries(goals).map(([name, g]) => [name, ratio(g.value), g.goal, passFail(g.pass)]),
    ),
  ].join('\n');
  return { title: 'Task mode on PostgreSQL', markdown, data: { runs, goals } };
}

function invalid(): LoadResult {
  return {
    requestsPerSecond: Number.NaN,
    latencyP50Ms: Number.NaN,
    latencyP99Ms: Number.NaN,
    total2xx: 0,
    errors: 0,
    timeouts: 0,
    non2xx: 0,
    mismatches: 0,
    valid: false,
    generatorCpuMicrosPerRequest: Number.NaN,
    generatorBusy: Number.NaN,
  };
}
