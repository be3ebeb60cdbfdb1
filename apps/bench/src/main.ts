import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { killAllChildren } from './lib/children.js';
import { errorText, table } from './lib/format.js';
import { machineRows } from './lib/machine.js';
import { replaceMarkedSection } from './lib/report.js';
import type { RunOptions, SuiteResult } from './lib/types.js';
import { runBundle } from './suites/bundle.js';
import { runClient } from './suites/client.js';
import { runConsole } from './suites/console.js';
import { runFetchBinding } from './suites/fetch-binding.js';
import { runGovernance } from './suites/governance.js';
import { runGrpc } from './suites/grpc.js';
import { runMcp } from './suites/mcp.js';
import { runPostgres } from './suites/postgres.js';
import { runPostgresRss } from './suites/postgres-rss.js';
import { runPushBurst } from './suites/push-burst.js';
import { runRegistry } from './suites/registry.js';
import { runReplicasBudget } from './suites/replicas-budget.js';
import { runReplicasResume } from './suites/replicas-resume.js';
import { runThroughput } from './suites/throughput.js';
import { runTokenVerify } from './suites/token-verify.js';

// The suites `pnpm bench` runs, in report order (the slow server suites after the quick ones); each title heads its
// section. `pnpm bench -- --only <id>` runs one.
const SUITES: Array<{ id: string; title: string; run: (options: RunOptions) => Promise<SuiteResult> }> = [
  { id: 'governance', title: 'Governance decisions', run: runGovernance },
  { id: 'bundle', title: 'Browser bundle size', run: runBundle },
  { id: 'console', title: 'Console: first paint and JS size', run: runConsole },
  { id: 'push-burst', title: 'Push bursts (issue 31)', run: runPushBurst },
  { id: 'throughput', title: 'Server throughput', run: runThroughput },
  { id: 'client', title: 'Client round trips', run: runClient },
  { id: 'fetch', title: 'Fetch binding: Node, Deno and Bun', run: runFetchBinding },
  { id: 'mcp', title: 'A2A agent as an MCP tool (a2a-mcp bridge overhead)', run: runMcp },
  { id: 'grpc', title: 'gRPC throughput', run: runGrpc },
  { id: 'replicas-budget', title: 'N replicas sharing one budget (Redis)', run: runReplicasBudget },
  { id: 'replicas-resume', title: 'Resume across replicas after a kill (Redis)', run: (o) => runReplicasResume(o, 'redis') },
  { id: 'postgres', title: 'Task mode on PostgreSQL', run: runPostgres },
  { id: 'postgres-rss', title: 'RSS of a replica on PostgreSQL under load', run: runPostgresRss },
  {
    id: 'replicas-resume-postgres',
    title: 'Resume across replicas after a kill (PostgreSQL)',
    run: (o) => runReplicasResume(o, 'postgres'),
  },
  { id: 'registry', title: 'Registry search over 10,000 agents', run: runRegistry },
  { id: 'token-verify', title: 'Token verification CPU', run: runTokenVerify },
];

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
// Raw figures of the last run, for the developer's eyes: git-ignored, never committed.
const RESULTS_DIR = fileURLToPath(new URL('../results/', import.meta.url));

const argv = process.argv.slice(2);
const listArg = (flag: string): string[] | undefined => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1]?.split(',') : undefined);
const options: RunOptions = { quick: argv.includes('--quick'), targets: listArg('--targets') };
const only = listArg('--only');

const stop = (code: number) => () => {
  killAllChildren();
  process.exit(code);
};
process.on('SIGINT', stop(130));
process.on('SIGTERM', stop(143));
process.on('exit', killAllChildren);

async function main(): Promise<void> {
  const started = Date.now();
  const machine = machineRows();
  const loadAtStart = loadavg()[0] ?? 0;
  const sections: string[] = [];
  const raw: Record<string, unknown> = {};
  for (const suite of SUITES.filter((s) => !only || only.includes(s.id))) {
    const t0 = Date.now();
    // Other work on the machine skews every figure: record the 1-minute load average with each suite.
    const load = loadavg()[0] ?? 0;
    process.stdout.write(`[bench] ${suite.id} ...\n`);
    let result: SuiteResult;
    let status = 'done';
    try {
      result = await suite.run(options);
    } catch (error) {
      status = `not run: ${errorText(error)}`;
      result = { markdown: status, data: undefined };
    } finally {
      killAllChildren();
    }
    const seconds = (Date.now() - t0) / 1000;
    raw[suite.id] = { status, seconds, loadAverage1m: load, data: result.data };
    process.stdout.write(`[bench] ${suite.id} ${status} in ${seconds.toFixed(1)} s\n`);
    sections.push(
      `## ${suite.title}`,
      '',
      result.markdown,
      '',
      `_Suite time ${seconds.toFixed(0)} s; 1-minute load average when it started: ${load.toFixed(2)} on ${cpus().length} cores._`,
      '',
    );
  }
  const totalSeconds = (Date.now() - started) / 1000;
  const date = new Date().toISOString();
  const quick = options.quick ? ' -- --quick' : '';
  const markdown = [
    `Generated by \`pnpm bench${quick}\` (apps/bench) on ${date} in ${totalSeconds.toFixed(0)} s${quick && ' — **quick mode**: shorter runs, figures are noisier than a full run'}. Everything runs on 127.0.0.1; server runs are separate child processes. These are measurements of one machine, not guarantees; tests never assert speed.`,
    '',
    '## Machine',
    '',
    table(['', ''], [...machine, ['1-minute load average at start', loadAtStart.toFixed(2)]]),
    '',
    ...sections,
  ].join('\n');
  await mkdir(RESULTS_DIR, { recursive: true });
  const results = { date, quick: options.quick, totalSeconds, machine, suites: raw };
  await writeFile(`${RESULTS_DIR}${only ? 'partial' : 'latest'}.json`, `${JSON.stringify(results, null, 2)}\n`);
  if (only) {
    // A partial run (development) prints its sections and never overwrites the full report.
    process.stdout.write(`\n${markdown}\n[bench] partial run: printed only (raw figures in apps/bench/results/partial.json)\n`);
    return;
  }
  const doc = `${ROOT}docs/benchmarks.md`;
  await writeFile(doc, replaceMarkedSection(await readFile(doc, 'utf8'), markdown));
  process.stdout.write(`[bench] wrote the generated section of docs/benchmarks.md (${totalSeconds.toFixed(0)} s)\n`);
}

main().catch((error: unknown) => {
  killAllChildren();
  process.stderr.write(`${errorText(error)}\n`);
  process.exit(1);
});
