import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { type Guide, missingExpectations, withPorts } from './markdown-steps.js';
import { type PackedPackages, withTarballs } from './scratch-project.js';

export interface GuideRun {
  /** One line per step: where it is in the guide, what it did, how long it took. */
  log: string[];
  /** Wall time of the whole guide, installs included. */
  elapsedMs: number;
}

export interface RunGuideOptions {
  guide: Guide;
  /** The guide's file name, for messages. */
  name: string;
  project: string;
  packed: PackedPackages;
  /** Longest a foreground command may take. Default 5 minutes (an install). */
  commandTimeoutMs?: number;
  /** Extra environment for every command (e.g. REDIS_URL). */
  env?: Record<string, string>;
}

/** Runs every step of a guide in the scratch project; throws at the first step that fails, with its output. */
export async function runGuide(options: RunGuideOptions): Promise<GuideRun> {
  const { guide, project, packed } = options;
  const ports = new Map<number, number>();
  for (const port of guide.ports) ports.set(port, await freePort());
  const background: ChildProcess[] = [];
  const log: string[] = [];
  const started = Date.now();
  let lastOutput = '';
  try {
    for (const step of guide.steps) {
      const at = `${options.name}:${step.line}`;
      const stepStarted = Date.now();
      if (step.kind === 'file') {
        const path = join(project, step.path);
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, withPorts(step.content, ports));
        log.push(`${at} wrote ${step.path}`);
        continue;
      }
      if (step.kind === 'expect') {
        const missing = missingExpectations(
          lastOutput,
          step.lines.map((line) => withPorts(line, ports)),
        );
        if (missing.length > 0)
          throw new Error(`${at}: the output does not show:\n  ${missing.join('\n  ')}\n--- output ---\n${lastOutput}`);
        log.push(`${at} output as the guide shows`);
        continue;
      }
      if (step.kind === 'background') {
        const command = withPorts(step.command, ports);
        const child = start(command, project, options.env);
        background.push(child);
        await waitFor(child, step.ready, 60_000, `${at}: \`${command}\``);
        log.push(`${at} started \`${command}\` (${Date.now() - stepStarted} ms)`);
        continue;
      }
      lastOutput = '';
      for (const raw of step.commands) {
        const command = withTarballs(withPorts(raw, ports), packed);
        lastOutput += await runCommand(command, project, options.env, options.commandTimeoutMs ?? 300_000, `${at}: \`${raw}\``);
      }
      log.push(`${at} ran ${step.commands.length} command(s) (${Date.now() - stepStarted} ms)`);
    }
  } finally {
    await Promise.all(background.map((child) => stop(child)));
  }
  return { log, elapsedMs: Date.now() - started };
}

/** Each command leads a process group of its own, so stopping it also stops what it started (npx's child). */
function start(command: string, cwd: string, env: Record<string, string> | undefined): ChildProcess {
  return spawn('bash', ['-c', `exec ${command}`], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

function runCommand(
  command: string,
  cwd: string,
  env: Record<string, string> | undefined,
  timeoutMs: number,
  label: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = start(command, cwd, env);
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => {
      signalGroup(child, 'SIGKILL');
      reject(new Error(`${label} did not end within ${timeoutMs} ms\n--- output ---\n${output}`));
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`${label} exited ${code}\n--- output ---\n${output}`));
    });
  });
}

function waitFor(child: ChildProcess, text: string, timeoutMs: number, label: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => reject(new Error(`${label} did not print "${text}" within ${timeoutMs} ms\n--- output ---\n${output}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(text)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${label} exited ${code} before printing "${text}"\n--- output ---\n${output}`));
    });
  });
}

/** SIGTERM to the whole group, SIGKILL after 5 s if anything of it is still there. */
async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  signalGroup(child, 'SIGTERM');
  const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
  signalGroup(child, 'SIGKILL'); // grandchildren that ignored SIGTERM
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
