import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { migrate } from '@a2aplane/a2a-postgres';
import pg from 'pg';
import { startServer } from '../lib/children.js';
import { processRssBytes } from '../lib/cpu.js';
import { goalTable, mib, num, table } from '../lib/format.js';
import { load } from '../lib/load.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';
import { POSTGRES_URL } from './postgres.js';

/** Growth from the middle to the end of the run that still counts as flat. */
const FLAT = 0.1;

/**
 * Issue 35's goal "RSS of a replica flat under 60 s of load (state lives in PostgreSQL)": one
 * replica (store and bus on PostgreSQL) under task-mode load for 60 s (quick: 10 s), its RSS read
 * from /proc after the warm-up, at the middle and at the end. Flat: the second half grows it by at
 * most 10% (the first half includes the heap settling at its working size).
 */
export async function runPostgresRss(options: RunOptions): Promise<SuiteResult> {
  const seconds = options.quick ? 10 : 60;
  const admin = new pg.Pool({ connectionString: POSTGRES_URL, max: 2 });
  admin.on('error', () => undefined);
  const schema = `bench_rss_${randomBytes(4).toString('hex')}`;
  const samples: { at: string; rss: number | undefined; requestsPerSecond?: number }[] = [];
  const loadBefore = loadavg();
  try {
    await migrate(admin, { schema });
    const env = { ...process.env, POSTGRES_URL, BENCH_PG_SCHEMA: schema };
    const server = await startServer('ours', ['--mode', 'task', '--store', 'postgres'], { env });
    try {
      await load(server.url, 'task', 3, 50);
      samples.push({ at: 'start (after 3 s of warm-up)', rss: processRssBytes(server.process.pid) });
      for (const at of [`middle (${seconds / 2} s)`, `end (${seconds} s)`]) {
        const result = await load(server.url, 'task', seconds / 2, 50);
        samples.push({ at, rss: processRssBytes(server.process.pid), requestsPerSecond: result.requestsPerSecond });
        process.stdout.write(`  rss ${at}: ${mib(samples.at(-1)?.rss ?? Number.NaN)}, ${num(result.requestsPerSecond)} req/s\n`);
      }
    } finally {
      await server.stop();
    }
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    await admin.end();
  }
  const [, middle, end] = samples;
  const growth = middle?.rss && end?.rss ? end.rss / middle.rss - 1 : Number.NaN;
  const loadAfter = loadavg();
  const loads = (values: number[]) => values.map((v) => v.toFixed(2)).join(', ');
  const markdown = [
    `One replica (ours on node:http, task store and event bus on PostgreSQL at POSTGRES_URL, pool of 10) under task-mode load (autocannon, 50 connections) for ${seconds} s after a 3 s warm-up; RSS from /proc/<pid>/status. Load average (1, 5, 15 min) ${loads(loadBefore)} before, ${loads(loadAfter)} after: the machine is shared, so req/s vary; the RSS shape is what the goal reads.`,
    '',
    table(
      ['when', 'RSS', 'req/s over the half before'],
      samples.map((s) => [s.at, mib(s.rss ?? Number.NaN), s.requestsPerSecond === undefined ? '' : num(s.requestsPerSecond)]),
    ),
    '',
    goalTable([
      ['RSS flat under load: growth from the middle to the end', `${num(growth * 100, 1)}%`, `<= ${FLAT * 100}%`, growth <= FLAT],
    ]),
  ].join('\n');
  return { markdown, data: { samples, growth, loadBefore, loadAfter } };
}
