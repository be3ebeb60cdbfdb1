import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { type ServerChild, startProcess, startServer } from '../lib/children.js';
import { goalTable, num, ratio, table } from '../lib/format.js';
import { measureServer, medianOf, type ReplyMode, type ServerRun } from '../lib/load.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

// The fetch binding (issue 38): under Node (through @hono/node-server) against our node:http
// binding, and in Deno and Bun against the official SDK's express server on Node.

type Runtime = 'deno' | 'bun';
interface Target {
  id: string;
  label: string;
  start(mode: ReplyMode): Promise<ServerChild>;
}

const require = createRequire(import.meta.url);

const nodeTarget = (id: string, server: string, args: string[], label: string): Target => ({
  id,
  label,
  start: (mode) => startServer(server, ['--mode', mode, ...args]),
});

/** `src/servers/ours-fetch-runtime.ts` bundled for Deno and Bun (built once per run). */
let bundled: { dir: string; file: string } | undefined;
async function runtimeBundle(): Promise<string> {
  if (bundled) return bundled.file;
  const dir = mkdtempSync(join(tmpdir(), 'a2a-bench-fetch-'));
  const file = join(dir, 'server.mjs');
  await esbuild.build({
    entryPoints: [fileURLToPath(new URL('../servers/ours-fetch-runtime.ts', import.meta.url))],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    conditions: ['import', 'default'],
    // Deno and Bun provide Node's built-ins (jose's build for Node imports them).
    external: ['node:*'],
    outfile: file,
    logLevel: 'silent',
  });
  bundled = { dir, file };
  return file;
}

const runtimeTarget = (runtime: Runtime): Target => ({
  id: `ours-fetch-${runtime}`,
  label: `ours, fetch binding in ${runtime === 'deno' ? 'Deno (Deno.serve)' : 'Bun (Bun.serve)'}`,
  async start(mode) {
    const script = await runtimeBundle();
    // The runtime's binary inside its npm package (deno's `bin` is a Node launcher that would hide the pid).
    const dir = dirname(require.resolve(`${runtime}/package.json`));
    const binary = runtime === 'deno' ? join(dir, 'deno') : join(dir, 'bin', 'bun.exe');
    return startProcess(binary, runtime === 'deno' ? ['run', '-A', '--no-config', script, mode] : ['run', script, mode]);
  },
});

const TARGETS: Target[] = [
  nodeTarget('ours', 'ours', [], 'ours, node:http binding'),
  nodeTarget('ours-fetch-node', 'ours', ['--fetch'], "ours, fetch binding on Node's Request/Response (@hono/node-server)"),
  nodeTarget('official', 'official', [], 'official @a2a-js/sdk (express) on Node'),
  runtimeTarget('deno'),
  runtimeTarget('bun'),
];

const GOALS = [
  { name: 'fetch on Node / node:http', num: 'ours-fetch-node', den: 'ours', goal: 0.8 },
  { name: 'fetch in Deno / official on Node', num: 'ours-fetch-deno', den: 'official', goal: 2 },
  { name: 'fetch in Bun / official on Node', num: 'ours-fetch-bun', den: 'official', goal: 2 },
];

export async function runFetchBinding(options: RunOptions): Promise<SuiteResult> {
  const rounds = options.quick ? 1 : 3;
  const timing = { warmupSeconds: options.quick ? 1 : 2, warmupRequests: 0, warmupMaxSeconds: 2, seconds: options.quick ? 2 : 4 };
  const runs: ServerRun[] = [];
  try {
    for (let round = 1; round <= rounds; round++) {
      for (const mode of ['message', 'task'] as const) {
        for (const target of TARGETS) runs.push(await measureServer(() => target.start(mode), { round, mode, target: target.id }, timing));
      }
    }
  } finally {
    if (bundled) rmSync(bundled.dir, { recursive: true, force: true });
    bundled = undefined;
  }
  const of = (mode: ReplyMode) => runs.filter((run) => run.mode === mode);
  const rows = TARGETS.map((target) => [
    target.label,
    ...(['message', 'task'] as const).flatMap((mode) => [
      num(medianOf(of(mode), target.id, (run) => run.requestsPerSecond)),
      num(medianOf(of(mode), target.id, (run) => run.cpuMicrosPerRequest)),
    ]),
    `${runs.filter((run) => run.target === target.id && run.valid).length}/${rounds * 2}`,
  ]);
  const goals = GOALS.flatMap((goal) =>
    (['message', 'task'] as const).map((mode): [string, string, string, boolean] => {
      const rate = (target: string) => medianOf(of(mode), target, (run) => run.requestsPerSecond);
      const value = rate(goal.num) / rate(goal.den);
      return [`${goal.name} (${mode})`, ratio(value), `>= ${goal.goal}x`, value >= goal.goal];
    }),
  );
  const markdown = [
    `autocannon, 50 connections, ${timing.seconds} s measured after ${timing.warmupSeconds} s of warm-up, median of ${rounds} round(s); SendMessage over JSON-RPC, every reply body checked (a run with a wrong body, a non-2xx reply or an error is invalid). CPU is the server process's user + system time per request (µs). All on one shared machine: the load generator competes with the server for the same cores.`,
    '',
    table(['server', 'message req/s', 'message CPU µs/req', 'task req/s', 'task CPU µs/req', 'valid runs'], rows),
    '',
    goalTable(goals),
  ].join('\n');
  return { title: 'Fetch binding: Node, Deno and Bun', markdown, data: { runs } };
}
