import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Task } from '@a2aplane/a2a-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_VERSION, EXIT_CODES } from '../src/index.js';
import { freePort } from '@a2aplane/test-utils';
import { run, startTestAgent, type TestAgent, tempDir } from './helpers.js';

// The published executable as a process: exit codes, stdout/stderr and signals as a shell sees
// them. turbo builds the package before its tests (`test` depends on `build`).
const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

interface Exec {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exited: Promise<number | null>;
}

function exec(args: string[], env: Record<string, string> = {}): Exec {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, out: () => out, err: () => err, exited };
}

async function a2a(...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const running = exec(args);
  const code = await running.exited;
  return { code, out: running.out(), err: running.err() };
}

async function waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
}

const ESC = '\u001b[';

describe('the a2a binary (dist/bin.js)', () => {
  beforeAll(() => {
    // turbo builds before `test`; running vitest by hand needs `pnpm build` first.
    if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`pnpm build\` before these tests`);
  });

  let signed: TestAgent;
  let unsigned: TestAgent;
  let tampered: TestAgent;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  beforeAll(async () => {
    [signed, unsigned, tampered] = await Promise.all([startTestAgent('signed'), startTestAgent('unsigned'), startTestAgent('tampered')]);
    dir = await tempDir();
  });
  afterAll(async () => {
    await Promise.all([signed?.close(), unsigned?.close(), tampered?.close()]);
    await dir?.remove();
  });

  it('--version, --help and no command', async () => {
    expect(await a2a('--version')).toEqual({ code: 0, out: `${CLI_VERSION}\n`, err: '' });
    const help = await a2a('--help');
    expect(help.code).toBe(0);
    expect(help.out).toContain('Usage: a2a <command> [options]');
    expect((await a2a()).code).toBe(EXIT_CODES.usage);
  });

  it('card: the process exit code says valid (0), tampered (2) or unsigned (3); no colors in a pipe', async () => {
    const valid = await a2a('card', signed.url, '--allow-insecure');
    expect(valid.code).toBe(EXIT_CODES.ok);
    expect(valid.out).toContain('signature valid');
    expect(valid.out + valid.err).not.toContain(ESC);
    const bad = await a2a('card', tampered.url, '--allow-insecure');
    expect(bad.code).toBe(EXIT_CODES.invalidSignature);
    expect(bad.err).toContain('signature INVALID (tampered)');
    expect(bad.err).not.toContain(ESC);
    expect((await a2a('card', unsigned.url, '--allow-insecure')).code).toBe(EXIT_CODES.unsigned);
  });

  it('send --json gives a parseable task for scripts', async () => {
    const sent = await a2a('send', signed.url, 'from a script', '--json', '--allow-insecure');
    expect(sent.code).toBe(0);
    expect(sent.err).toBe('');
    const task = (JSON.parse(sent.out) as { task: Task }).task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('send exits 4 when the task ends FAILED, REJECTED or CANCELED (blocking and --stream), 0 when it completes', async () => {
    for (const text of ['fail', 'reject', 'cancel']) {
      expect((await a2a('send', signed.url, text, '--allow-insecure')).code, text).toBe(EXIT_CODES.taskUnsuccessful);
      expect((await a2a('send', signed.url, text, '--stream', '--allow-insecure')).code, `${text} --stream`).toBe(
        EXIT_CODES.taskUnsuccessful,
      );
    }
    expect((await a2a('send', signed.url, 'fine', '--stream', '--allow-insecure')).code).toBe(EXIT_CODES.ok);
  }, 60_000); // six runs of the built CLI, each a Node process: slow while every suite runs at once

  it('a closed stdout (a2a ... | head) ends quietly: no EPIPE stack trace', async () => {
    const running = exec(['send', signed.url, 'piped', '--json', '--allow-insecure']);
    running.child.stdout?.destroy();
    const code = await running.exited;
    expect(running.err()).not.toMatch(/EPIPE|^\s+at /m);
    expect(code).toBe(0);
  });

  it('a misdirected base URL (the JSON-RPC endpoint) says which URL to pass', async () => {
    const result = await a2a('send', `${signed.url}/a2a/jsonrpc`, 'hi');
    expect(result.code).toBe(EXIT_CODES.failure);
    expect(result.err.trimEnd().split('\n')).toHaveLength(1);
    expect(result.err).toContain(`pass the agent's base URL, the one serving /.well-known/agent-card.json (such as ${signed.url})`);
  });

  it('each command help shows its own options and exit codes only', async () => {
    const send = await a2a('send', '--help');
    expect(send.out).toContain('4   the task ended FAILED, REJECTED or CANCELED');
    expect(send.out).toContain('2   the agent card failed verification');
    // `a2a card`'s own exit code (3: unsigned card) is not listed for send/get.
    expect(send.out).not.toMatch(/^\s+3 /m);
    const get = await a2a('get', '--help');
    expect(get.out).toContain('Exit codes:');
    expect(get.out).not.toMatch(/--stream|^\s+[34] /m);
    const main = await a2a('--help');
    expect(main.out).not.toContain('signature tampered');
  });

  it('errors are one line on stderr with no stack trace: bad URL 64, unreachable agent 1, missing file 1', async () => {
    const port = await freePort();
    const cases: Array<[string[], number, string]> = [
      [['send', 'localhost:8080', 'hi'], EXIT_CODES.usage, 'error: send: invalid URL "localhost:8080"'],
      [['send', `http://127.0.0.1:${port}`, 'hi'], EXIT_CODES.failure, `error: cannot reach http://127.0.0.1:${port}: connection refused`],
      [['verify-card', dir.file('missing.json'), '--key', dir.file('missing.jwk')], EXIT_CODES.failure, 'no such file'],
      [['frobnicate'], EXIT_CODES.usage, 'a2a: unknown command "frobnicate"'],
    ];
    for (const [args, code, message] of cases) {
      const result = await a2a(...args);
      expect(result.code, args.join(' ')).toBe(code);
      expect(result.out).toBe('');
      expect(result.err).toContain(message);
      expect(result.err.trimEnd().split('\n'), args.join(' ')).toHaveLength(1);
      expect(result.err).not.toMatch(/^\s+at /m);
    }
  });

  it('serve prints its URL, serves, and stops on SIGINT with exit 0, closing its port', async () => {
    const config = dir.file('serve.yaml');
    await writeFile(config, 'recursion:\n  max_call_depth: 4\n');
    const serving = exec(['serve', '--config', config, '--json']);
    await waitFor(() => serving.out().includes('\n') || serving.child.exitCode !== null);
    const { url } = JSON.parse(serving.out().split('\n')[0] as string) as { url: string };
    expect((await run(['send', '--allow-insecure', url, 'hello', '--json'])).code).toBe(0);
    serving.child.kill('SIGINT');
    expect(await serving.exited).toBe(0);
    const after = await run(['send', '--allow-insecure', url, 'anyone?']);
    expect(after.code).toBe(EXIT_CODES.failure);
    expect(after.err).toMatch(/^error: cannot reach /);
  });

  it('subscribe follows a running task until SIGINT: exit 130', async () => {
    const sent = await run(['send', '--allow-insecure', signed.url, 'a slow task', '--no-wait', '--json']);
    const task = (JSON.parse(sent.out) as { task: Task }).task;
    const following = exec(['subscribe', '--allow-insecure', signed.url, task.id]);
    try {
      await waitFor(() => following.out().includes(task.id) || following.child.exitCode !== null);
      expect(following.out()).toContain(task.id);
      following.child.kill('SIGINT');
      expect(await following.exited).toBe(EXIT_CODES.interrupted);
    } finally {
      if (following.child.exitCode === null) following.child.kill('SIGKILL');
      await run(['cancel', '--allow-insecure', signed.url, task.id]);
    }
  });
});
