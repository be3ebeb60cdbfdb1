import { type ChildProcess, spawn } from 'node:child_process';
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DemoReport } from '../src/report.js';

// `pnpm demo` as a user runs it: the app's start script, in its own process group as a terminal
// would run it, so that Ctrl-C can be sent to the whole group and we can check that nothing of
// it is left afterwards.
const appDirectory = fileURLToPath(new URL('..', import.meta.url));
const manifest = createRequire(import.meta.url)('../package.json') as { scripts: { start: string } };
const [command, ...startArgs] = manifest.scripts.start.split(' ');

interface Demo {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

let outputDirectory: string;
const started: Demo[] = [];

beforeEach(async () => {
  outputDirectory = await mkdtemp(join(tmpdir(), 'a2aplane-demo-test-'));
});
afterEach(async () => {
  for (const demo of started.splice(0)) {
    if (demo.child.exitCode === null && demo.child.signalCode === null) groupKill(demo.child, 'SIGKILL');
    await demo.exited;
  }
  await rm(outputDirectory, { recursive: true, force: true });
});

function groupKill(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-(child.pid as number), signal);
  } catch {
    // already gone
  }
}

function startDemo(env: Record<string, string> = {}): Demo {
  expect(command).toBe('node');
  const child = spawn(process.execPath, startArgs, {
    cwd: appDirectory,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', INIT_CWD: appDirectory, DEMO_OUTPUT_DIR: outputDirectory, ...env },
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const demo = { child, output: () => output, exited };
  started.push(demo);
  return demo;
}

async function waitForOutput(demo: Demo, pattern: RegExp, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(demo.output())) {
    if (demo.child.exitCode !== null) throw new Error(`demo exited ${demo.child.exitCode} before ${pattern}:\n${demo.output()}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}:\n${demo.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** True once no process of the demo's process group is left (polled: exits are not instant). */
async function processGroupGone(child: ChildProcess): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    try {
      process.kill(-(child.pid as number), 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') return true;
      throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

const agentUrls = (output: string): string[] => [...new Set(output.match(/http:\/\/127\.0\.0\.1:\d+/g) ?? [])];

function refusesConnections(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

async function expectNothingLeft(demo: Demo, urls: string[]): Promise<void> {
  expect(await processGroupGone(demo.child)).toBe(true);
  for (const url of urls) expect(await refusesConnections(url), url).toBe(true);
}

const readReport = async (): Promise<DemoReport> =>
  JSON.parse(await readFile(join(outputDirectory, 'demo-report.json'), 'utf8')) as DemoReport;

describe('pnpm demo (the process)', () => {
  it('runs the three scenarios, the trust check, the registry, OpenID Connect and MCP scenarios, prints the report and the tree, writes its files, exits 0 and leaves nothing behind', async () => {
    const demo = startDemo();
    expect(await demo.exited).toBe(0);
    const output = demo.output();
    expect(output).toContain('1. Remote ≡ local  PASS');
    expect(output).toContain('2. Constant-size memory hand-off  PASS');
    expect(output).toContain('3. Bounded cost under recursion  PASS');
    expect(output).toContain('4. Trust allowlist: an unlisted agent is refused  PASS');
    expect(output).toMatch(/refused unlisted +AgentID [0-9a-f]{16}… +FORBIDDEN/);
    expect(output).toContain('5. Registry: enroll, find by skill, revoke  PASS');
    expect(output).toContain('refused its next call at delegator: UNAUTHENTICATED');
    expect(output).toContain('refused its next call at worker-b: UNAUTHENTICATED');
    expect(output).toMatch(/revocation effective at every server in \d+ ms/);
    expect(output).toContain('6. OpenID Connect: a client that fetched its own token  PASS');
    expect(output).toMatch(/served +token with skill:work +"hello demo-caller \(scopes: skill:work\)"/);
    expect(output).toMatch(/refused +no token +UNAUTHENTICATED/);
    expect(output).toContain('7. MCP inside a delegation: one trace, one budget  PASS');
    expect(output.match(/traced +tools\/call .*cost \$0\.004/g)).toHaveLength(2);
    expect(output).toMatch(/\[ *\d+\.\ds\] scenario 2: A hands B 1,000,000 vectors/); // the progress display
    expect(output).toMatch(/^delegator-00 d0 \$0\.010$/m); // the text tree
    expect(output).toMatch(/^├─ delegator-\d\d d1 \$0\.010$/m);
    expect(output).toContain('All three acceptance tests passed');
    // Scenarios 1-3 and 7: every request an agent ran was signed by its sender and verified as its AgentID.
    expect(output.match(/verified as its AgentID \(RFC 9421\): (\d+) of \1, \d+ between agents: PASS/g)).toHaveLength(4);

    const report = await readReport();
    expect(report.passed).toBe(true);
    expect(report.interrupted).toBe(false);
    const recursion = report.scenarios.boundedRecursion as {
      dispatched: number;
      rejectedByReason: Record<string, number>;
      spendUsd: number;
      maxUsdPerMinute: number;
    };
    expect(recursion.spendUsd).toBeLessThanOrEqual(recursion.maxUsdPerMinute);
    const nodes = recursion.dispatched + Object.values(recursion.rejectedByReason).reduce((a, b) => a + b, 0);
    const svg = await readFile(join(outputDirectory, 'delegation-tree.svg'), 'utf8');
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.match(/<circle class="node"/g)).toHaveLength(nodes);
    expect(await readFile(join(outputDirectory, 'delegation-tree.html'), 'utf8')).toContain(svg);
    // The MCP scenario's trace and its waterfall, the MCP hops drawn with their cost.
    const mcp = report.scenarios.mcpDelegation as { traceId: string };
    const mcpTrace = await readFile(join(outputDirectory, 'mcp-trace.otlp.json'), 'utf8');
    expect(mcpTrace).toContain(mcp.traceId);
    expect((await readFile(join(outputDirectory, 'mcp-trace.html'), 'utf8')).match(/→ MCP tools\/call price \$0\.004/g)).toHaveLength(2);

    const urls = agentUrls(output);
    // Agents of scenarios 1-5, then the OpenID provider and its agent, then two agents and the MCP server.
    expect(urls).toHaveLength(1 + 2 + 15 + 3 + 3 + 2 + 3);
    await expectNothingLeft(demo, urls);
  }, 120_000);

  it('exits 1 when an acceptance test fails (an operator config that allows revisits lets A -> B -> C -> A through)', async () => {
    const config = join(outputDirectory, 'revisits-allowed.yaml');
    const original = await readFile(join(appDirectory, 'config/control-plane.yaml'), 'utf8');
    expect(original).toContain('deny_revisit: true');
    await writeFile(config, original.replace('deny_revisit: true', 'deny_revisit: false'));
    const demo = startDemo({ DEMO_CONFIG: config });
    expect(await demo.exited).toBe(1);
    expect(demo.output()).toContain('3. Bounded cost under recursion  FAIL');
    expect(demo.output()).toContain('An acceptance test failed');
    const report = await readReport();
    expect(report.passed).toBe(false);
    expect((report.scenarios.boundedRecursion as { cycle: { callsToA: number } }).cycle.callsToA).toBeGreaterThan(1);
    await expectNothingLeft(demo, agentUrls(demo.output()));
  }, 120_000);

  it('Ctrl-C (SIGINT to the process group) mid-run closes every agent and exits 130: no process and no listening port remain', async () => {
    const demo = startDemo();
    // Scenario 2's agents are up and A is writing the 1M-vector payload: interrupt the heaviest work.
    await waitForOutput(demo, /A retriever +http:\/\/127\.0\.0\.1:\d+/);
    await waitForOutput(demo, /scenario 2: A hands B 1,000,000 vectors/);
    const urls = agentUrls(demo.output());
    expect(urls).toHaveLength(3);
    groupKill(demo.child, 'SIGINT');
    expect(await demo.exited).toBe(130);
    expect(demo.output()).toContain('interrupted: closing agents');
    expect(demo.output()).toContain('every agent was closed');
    expect(demo.output()).not.toContain('3. Bounded cost under recursion');
    await expectNothingLeft(demo, urls);
    // The temporary file-system tier of scenario 2 is removed too.
    const tier = /file-system tier (\S+)/.exec(demo.output())?.[1];
    expect(tier).toContain('a2aplane-demo-tier-');
    await expect(access(tier as string)).rejects.toThrow();
    const report = await readReport();
    expect(report).toMatchObject({ passed: false, interrupted: true });
  }, 120_000);
});
