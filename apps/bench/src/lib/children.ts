import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pinnedCommand } from './pinning.js';

const APP_DIR = fileURLToPath(new URL('../..', import.meta.url));

/** Every child still alive, so main can kill them on exit or SIGINT. */
const live = new Set<ChildProcess>();

export type ServerChild = { port: number; url: string; process: ChildProcess; stop(): Promise<void> };

/** `cpu`: pin the server (every thread) to this CPU with taskset (see `pinLoadGenerator`). */
export type StartOptions = { timeoutMs?: number; cpu?: number | undefined; env?: NodeJS.ProcessEnv };

/**
 * Starts `src/servers/<name>.ts --port 0 ...args` in a fresh Node process with the tsx loader
 * (workspace packages from their built dist; no tsx wrapper process, so the pid is the server's).
 */
export function startServer(name: string, args: string[] = [], options: StartOptions = {}): Promise<ServerChild> {
  return startProcess(process.execPath, ['--import', 'tsx', `src/servers/${name}.ts`, '--port', '0', ...args], options);
}

/** Starts `command ...args` in apps/bench and waits for its `READY <port>` line; a failed start is tried twice more. */
export async function startProcess(command: string, args: string[], options: StartOptions = {}): Promise<ServerChild> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(command, args, options);
    } catch (error) {
      if (attempt >= 3) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5000));
    }
  }
}

async function startOnce(command: string, args: string[], { timeoutMs = 30_000, cpu, env }: StartOptions): Promise<ServerChild> {
  const [file, argv] = pinnedCommand(cpu, command, args);
  const child = spawn(file, argv, {
    cwd: APP_DIR,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...(env ?? process.env), NODE_ENV: 'production' },
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  const name = args.join(' ');
  const port = await new Promise<number>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error(`${name}: no READY line within ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs);
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const ready = /^READY (\d+)$/m.exec(stdout);
      if (ready) {
        clearTimeout(timer);
        child.stdout?.removeAllListeners('data').resume();
        resolve(Number(ready[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before READY; stderr: ${stderr}`));
    });
  });
  return { port, url: `http://127.0.0.1:${port}`, process: child, stop: () => stopChild(child) };
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
