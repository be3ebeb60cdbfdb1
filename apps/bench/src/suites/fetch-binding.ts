import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { startProcess } from '../lib/children.js';
import { type Goal, judge, runServers, serverReport, serverTarget, type Target } from '../lib/server-suite.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

// The fetch binding (issue 38): under Node (through @hono/node-server) against our node:http
// binding, and in Deno and Bun against the official SDK's express server on Node.

const GOALS: Goal[] = (['message', 'task'] as const).flatMap((mode) => [
  { mode, name: 'fetch on Node / node:http', num: 'ours-fetch-node', den: 'ours', min: 0.8 },
  { mode, name: 'fetch in Deno / official on Node', num: 'ours-fetch-deno', den: 'official', min: 2 },
  { mode, name: 'fetch in Bun / official on Node', num: 'ours-fetch-bun', den: 'official', min: 2 },
]);

/** `src/servers/ours-fetch-runtime.ts`, bundled into `dir` for Deno and Bun, started with the runtime's own binary. */
async function runtimeTargets(dir: string): Promise<Target[]> {
  const script = join(dir, 'server.mjs');
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
    outfile: script,
    logLevel: 'silent',
  });
  return (['deno', 'bun'] as const).map((runtime) => ({
    id: `ours-fetch-${runtime}`,
    label: `ours, fetch binding in ${runtime === 'deno' ? 'Deno (Deno.serve)' : 'Bun (Bun.serve)'}`,
    start(mode) {
      // The binary inside the runtime's npm package (deno's `bin` is a Node launcher that would hide the pid).
      const home = dirname(createRequire(import.meta.url).resolve(`${runtime}/package.json`));
      if (runtime === 'bun') return startProcess(join(home, 'bin', 'bun.exe'), ['run', script, mode]);
      return startProcess(join(home, 'deno'), ['run', '-A', '--no-config', script, mode]);
    },
  }));
}

export async function runFetchBinding(options: RunOptions): Promise<SuiteResult> {
  const rounds = options.quick ? 1 : 3;
  const timing = { warmupSeconds: options.quick ? 1 : 2, warmupRequests: 0, warmupMaxSeconds: 2, seconds: options.quick ? 2 : 4 };
  const dir = mkdtempSync(join(tmpdir(), 'a2a-bench-fetch-'));
  try {
    const targets = [
      serverTarget('ours', 'ours', [], 'ours, node:http binding'),
      serverTarget('ours-fetch-node', 'ours', ['--fetch'], "ours, fetch binding on Node's Request/Response (@hono/node-server)"),
      serverTarget('official', 'official', [], 'official @a2a-js/sdk (express) on Node'),
      ...(await runtimeTargets(dir)),
    ];
    const runs = await runServers(targets, ['message', 'task'], rounds, timing);
    const markdown = [
      `autocannon, 50 connections, ${timing.seconds} s measured after ${timing.warmupSeconds} s of warm-up, ${rounds} round(s) (every other one in reverse order), a fresh server process per run; SendMessage over JSON-RPC, every reply body checked (a run with a wrong body, a non-2xx reply or an error is invalid). CPU is the server process's user + system time per request (µs). All on one shared machine, unpinned: the load generator competes with the server for the same cores.`,
      '',
      ...serverReport(runs, targets, GOALS),
    ].join('\n');
    return { markdown, data: { runs, goals: judge(runs, GOALS) } };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
