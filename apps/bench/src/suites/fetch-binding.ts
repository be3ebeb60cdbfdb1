import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import * as esbuild from 'esbuild';
import { startServer } from '../lib/children.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';

// The fetch binding (issue 38): under Node (through @hono/node-server) against our node:http
// binding, and in Deno and Bun against the official SDK's express server on Node. Self-contained:
// its own load runs (autocannon), CPU readings and report.

type Mode = 'message' | 'task';
type Runtime = 'deno' | 'bun';
interface Target {
  id: string;
  label: string;
  start(mode: Mode): Promise<{ url: string; pid: number | undefined; stop(): Promise<void> }>;
}

const APP_DIR = fileURLToPath(new URL('../..', import.meta.url));
const require = createRequire(import.meta.url);

function cpuSeconds(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

const nodeTarget = (id: string, file: string, label: string): Target => ({
  id,
  label,
  async start(mode) {
    const child = await startServer(file, ['--mode', mode]);
    return { url: child.url, pid: child.process.pid, stop: () => child.stop() };
  },
});

/** The runtime's binary inside its npm package (deno's `bin` is a Node launcher that would hide the pid). */
function runtimeBinary(runtime: Runtime): string {
  const dir = dirname(require.resolve(`${runtime}/package.json`));
  return runtime === 'deno' ? join(dir, 'deno') : join(dir, 'bin', 'bun.exe');
}

let bundled: { dir: string; file: string } | undefined;
async function runtimeBundle(): Promise<string> {
  if (bundled) return bundled.file;
  const dir = mkdtempSync(join(tmpdir(), 'a2a-bench-fetch-'));
  const file = join(dir, 'server.mjs');
  await esbuild.build({
    entryPoints: [join(APP_DIR, 'src/servers/ours-fetch-runtime.ts')],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    conditions: ['import', 'default'],
    // ours-agent.ts also imports the root entry, whose build names Node built-ins without `node:`
    // (which Deno requires); both runtimes provide them.
    plugins: [
      {
        name: 'node-builtins',
        setup(build) {
          build.onResolve({ filter: /^(node:)?(crypto|http|https|net|dns|dns\/promises|fs|os|path|url|events|stream)$/ }, (args) => ({
            path: args.path.startsWith('node:') ? args.path : `node:${args.path}`,
            external: true,
          }));
        },
      },
    ],
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
    const args = runtime === 'deno' ? ['run', '-A', '--no-config', script, mode] : ['run', script, mode];
    const child: ChildProcess = spawn(runtimeBinary(runtime), args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const kill = (): void => void child.kill('SIGKILL');
    process.once('exit', kill);
    let output = '';
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${runtime}: no READY line: ${output}`)), 30_000);
      const onData = (chunk: Buffer): void => {
        output += chunk.toString();
        const match = /READY (\d+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(Number(match[1]));
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.once('exit', (code) => reject(new Error(`${runtime} exited with ${code}: ${output}`)));
    });
    return {
      url: `http://127.0.0.1:${port}`,
      pid: child.pid,
      async stop() {
        process.off('exit', kill);
        if (child.exitCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        await exited;
      },
    };
  },
});

const TARGETS: Target[] = [
  nodeTarget('ours', 'ours', 'ours, node:http binding'),
  nodeTarget('ours-fetch-node', 'ours-fetch', "ours, fetch binding on Node's Request/Response (@hono/node-server)"),
  nodeTarget('official', 'official', 'official @a2a-js/sdk (express) on Node'),
  runtimeTarget('deno'),
  runtimeTarget('bun'),
];

const GOALS: Array<{ name: string; num: string; den: string; goal: number }> = [
  { name: 'fetch on Node / node:http', num: 'ours-fetch-node', den: 'ours', goal: 0.8 },
  { name: 'fetch in Deno / official on Node', num: 'ours-fetch-deno', den: 'official', goal: 2 },
  { name: 'fetch in Bun / official on Node', num: 'ours-fetch-bun', den: 'official', goal: 2 },
];

let sent = 0;
function body(): string {
  sent += 1;
  const message = { messageId: `fetch-bench-${sent}`, role: 'ROLE_USER', parts: [{ text: 'hello' }] };
  return JSON.stringify({ jsonrpc: '2.0', id: sent, method: 'SendMessage', params: { message } });
}

const HEADERS = { 'content-type': 'application/json', 'a2a-version': '1.0' };

async function run(url: string, seconds: number): Promise<{ rps: number; non2xx: number; errors: number; requests: number }> {
  const result = await autocannon({
    url: `${url}/a2a/jsonrpc`,
    connections: 50,
    duration: seconds,
    method: 'POST',
    headers: HEADERS,
    requests: [{ setupRequest: (request: Record<string, unknown>) => Object.assign(request, { body: body() }) }],
    timeout: 10,
  });
  return { rps: result.requests.average, non2xx: result.non2xx, errors: result.errors, requests: result.requests.total };
}

/** One reply checked before the load: the target answers in the mode asked (a message, or a completed task). */
async function check(url: string, mode: Mode): Promise<void> {
  const reply = await (await fetch(`${url}/a2a/jsonrpc`, { method: 'POST', headers: HEADERS, body: body() })).text();
  const ok =
    reply.includes('"text":"echo: hello"') && reply.includes(mode === 'message' ? '"result":{"message"' : '"TASK_STATE_COMPLETED"');
  if (!ok) throw new Error(`unexpected reply in ${mode} mode: ${reply.slice(0, 200)}`);
}

interface Measured {
  round: number;
  mode: Mode;
  target: string;
  rps: number;
  cpuMicrosPerRequest: number;
  non2xx: number;
  errors: number;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

export async function runFetchBinding(options: RunOptions): Promise<SuiteResult> {
  const rounds = options.quick ? 1 : 3;
  const warmupSeconds = options.quick ? 1 : 2;
  const measureSeconds = options.quick ? 2 : 4;
  const runs: Measured[] = [];
  try {
    for (let round = 1; round <= rounds; round++) {
      for (const mode of ['message', 'task'] as const) {
        for (const target of TARGETS) {
          const server = await target.start(mode);
          try {
            await check(server.url, mode);
            await run(server.url, warmupSeconds);
            const before = cpuSeconds(server.pid);
            const result = await run(server.url, measureSeconds);
            const cpu = cpuSeconds(server.pid) - before;
            runs.push({ round, mode, target: target.id, ...result, cpuMicrosPerRequest: (cpu * 1e6) / result.requests });
          } finally {
            await server.stop();
          }
        }
      }
    }
  } finally {
    if (bundled) rmSync(bundled.dir, { recursive: true, force: true });
    bundled = undefined;
  }
  const cell = (mode: Mode, target: string, pick: (run: Measured) => number): number =>
    median(runs.filter((run) => run.mode === mode && run.target === target).map(pick));
  const rows = TARGETS.map((target) => [
    target.label,
    ...(['message', 'task'] as const).flatMap((mode) => [
      Math.round(cell(mode, target.id, (run) => run.rps)).toLocaleString('en-US'),
      cell(mode, target.id, (run) => run.cpuMicrosPerRequest).toFixed(0),
    ]),
    String(runs.filter((run) => run.target === target.id).reduce((sum, run) => sum + run.non2xx + run.errors, 0)),
  ]);
  const goals = GOALS.flatMap((goal) =>
    (['message', 'task'] as const).map((mode) => {
      const value = cell(mode, goal.num, (run) => run.rps) / cell(mode, goal.den, (run) => run.rps);
      return [`${goal.name} (${mode})`, `${value.toFixed(2)}x`, `≥ ${goal.goal}x`, value >= goal.goal ? 'pass' : 'FAIL'];
    }),
  );
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  const markdown = [
    `autocannon, 50 connections, ${measureSeconds} s measured after ${warmupSeconds} s of warm-up, median of ${rounds} round(s); SendMessage over JSON-RPC. CPU is the server process's user + system time per request (µs). All on one shared machine: the load generator competes with the server for the same cores.`,
    '',
    line(['server', 'message req/s', 'message CPU µs/req', 'task req/s', 'task CPU µs/req', 'non-2xx + errors']),
    line(['---', '---:', '---:', '---:', '---:', '---:']),
    ...rows.map(line),
    '',
    line(['ratio', 'measured', 'goal', '']),
    line(['---', '---:', '---:', '---']),
    ...goals.map(line),
  ].join('\n');
  return { title: 'Fetch binding: Node, Deno and Bun', markdown, data: { runs } };
}
