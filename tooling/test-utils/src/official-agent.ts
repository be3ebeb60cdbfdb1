import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** An agent running in a child process. */
export interface RunningChildAgent {
  url: string;
  /** SIGTERM, then waits for the process to exit. */
  close(): Promise<void>;
}

/**
 * The official @a2a-js/sdk agent (its `DefaultRequestHandler`, `InMemoryTaskStore` and express
 * JSON-RPC, REST and card handlers) in a child Node process on 127.0.0.1:0: under vitest its
 * express stack does not load. Skill `echo` echoes; a task whose text is `hold` waits for a cancel
 * or for a message `release:<taskId>`. Its JSON-RPC interface also answers A2A 0.3.
 */
export function startOfficialAgent(): Promise<RunningChildAgent> {
  return spawnAgent(fileURLToPath(new URL('../fixtures/official-agent.fixture.mjs', import.meta.url)));
}

/** Runs the Node script `file`, whose first line on stdout is its base URL. */
async function spawnAgent(file: string): Promise<RunningChildAgent> {
  const child: ChildProcess = spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve(line.trim());
    });
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code} before printing its URL`)));
  });
  return {
    url,
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
