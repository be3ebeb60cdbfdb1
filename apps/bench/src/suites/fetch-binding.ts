import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { startProcess, startServer } from '../lib/children.js';
import { type Goal, judge, runServers, serverReport, type Target } from '../lib/server-suite.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

// The fetch binding (issue 38): under Node (through @hono/node-server) against our node:http
// binding, and in Deno and Bun against the official SDK's express server on Node.

type Runtime = 'deno' | 'bun';

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

const GOALS: Goal[] = (['message', 'task'] as const).flatMap((mode) => [
  { mode, name: 'fetch on Node / node:http', num: 'ours-fetch-node', den: 'ours', min: 0.8 },
  { mode, name: 'fetch in Deno / official on Node', num: 'ours-fetch-deno', den: 'official', min: 2 },
  { mode, name: 'fetch in Bun / official on Node', num: 'ours-fetch-bun', den: 'official', min: 2 },
]);

export async function runFetchBinding(options: RunOptions): Promise<SuiteResult> {
  const rounds = options.quick ? 1 : 3;
  const timing = { warmupSeconds: options.quick ? 1 : 2, warmupRequests: 0, warmupMaxSeconds: 2, seconds: options.quick ? 2 : 4 };
  try {
    const runs = await runServers(TARGETS, ['message', 'task'], rounds, timing);
    const markdown = [
      `autocannon, 50 connections, ${timing.seconds} s measured after ${timing.warmupSeconds} s of warm-up, ${rounds} round(s) (every other one in reverse order), a fresh server process per run; SendMessage over JSON-RPC, every reply body checked (a run with a wrong body, a non-2xx reply or an error is invalid). CPU is the server process's user + system time per request (µs). All on one shared machine, unpinned: the load generator competes with the server for the same cores.`,
      '',
      ...serverReport(runs, TARGETS, GOALS),
    ].join('\n');
    return { markdown, data: { runs, goals: judge(runs, GOALS) } };
  } finally {
    if (bundled) rmSync(bundled.dir, { recursive: true, force: true });
    bundled = undefined;
  }
}
