import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// `pnpm --filter echo-agent start` (the start script of package.json, run here as it is written):
// it must print its URL, serve its card there, and stop cleanly on Ctrl-C.
const appDirectory = fileURLToPath(new URL('..', import.meta.url));
const manifest = createRequire(import.meta.url)('../package.json') as { scripts: { start: string } };
const [command, ...startArgs] = manifest.scripts.start.split(' ');

describe('pnpm --filter echo-agent start', () => {
  it('prints its URL, serves a signed card with push there, and exits 0 on SIGINT', async () => {
    expect(command).toBe('node');
    const child = spawn(process.execPath, startArgs, {
      cwd: appDirectory,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      for (let i = 0; i < 600 && !/AgentID: +[0-9a-f]{64}/.test(output) && child.exitCode === null; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const url = /^Echo agent listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(output)?.[1];
      expect(url, output).toBeDefined();
      const card = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as {
        capabilities: { pushNotifications: boolean };
        signatures: unknown[];
      };
      expect(card.capabilities.pushNotifications).toBe(true);
      expect(card.signatures).toHaveLength(1);
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      await expect(fetch(`${url}/.well-known/agent-card.json`)).rejects.toThrow();
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    }
  }, 60_000);
});
