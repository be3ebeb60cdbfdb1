import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pinnedCommand } from './pinning.js';

const APP_DIR = fileURLToPath(new URL('../..', import.meta.url));

/** Every child still alive, so main can kill them on exit or SIGINT. */
const live = new Set<ChildProcess>();

export interface ServerChild {
  port: number;
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export interface StartOptions {
  timeoutMs?: number;
  /** Pin the server (every thread) to this CPU with taskset; see `pinLoadGenerator` in pinning.ts. */
  cpu?: number;
}

/**
 * Starts `src/servers/<name>.ts --port 0 ...args` in a fresh Node process with the tsx loader
 * (workspace packages from their built dist, as users run them: tsx compiles with keepNames, whose
 * per-closure `__name` calls the published build does not have; no tsx wrapper process, so the pid
 * is the server) and waits for
 * its `READY <port>` line.
 */
export async function startServer(name: string, args: string[] = [], options: StartOptions = {}): Promise<ServerChild> {
  const { timeoutMs = 30_000, cpu } = options;
  // Retry a failed start a couple of times, so one slow or flaky start does not sink a whole suite.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(name, args, timeoutMs, cpu);
    } catch (error) {
      if (attempt >= 3) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5000));
    }
  }
}

async function startOnce(name: string, args: string[], timeoutMs: number, cpu: number | undefined): Promise<ServerChild> {
  const [command, argv] = pinnedCommand(cpu, process.execPath, ['--import', 'tsx', `src/servers/${name}.ts`, '--port', '0', ...args]);
  const child = spawn(command, argv, {
    cwd: APP_DIR,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  const port = await new Promise<number>((resolve, reject) => {
    let buffer = '';
    let ready = false;
    const timer = setTimeout(() => reject(new Error(`${name}: no READY line within ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs);
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      let index = buffer.indexOf('\n');
      while (index !== -1) {
        const line = buffer.slice(0, index).trim();
        buffer = buffer.slice(index + 1);
        if (!ready && line.startsWith('READY ')) {
          ready = true;
          clearTimeout(timer);
          resolve(Number(line.slice(6)));
        }
        index = buffer.indexOf('\n');
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (!ready) reject(new Error(`${name} exited with ${code} before READY; stderr: ${stderr}`));
    });
  });
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    process: child,
    stop: () => stopChild(child),
  };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
}

/** Kills every child still running (synchronously, for exit and signal handlers). */
export function killAllChildren(): void {
  for (const child of live) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  live.clear();
}
