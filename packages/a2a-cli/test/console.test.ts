import { describe, expect, it } from 'vitest';
import { CONSOLE_INSTALL_HINT, createConsoleCommand } from '../src/commands/console.js';
import { createCommandContext } from '../src/io.js';
import { captureIo, run } from './helpers.js';

// `a2a console` loads @a2aplane/a2a-console (an optional peer) only when it runs.

describe('a2a console', () => {
  it('starts the console when the package is installed, prints its URL, and stops on the signal', async () => {
    const controller = new AbortController();
    let printed = '';
    const stdout = {
      write: (text: string) => {
        printed += text;
        if (printed.includes('\n')) setTimeout(() => void checkThenStop(), 0);
      },
      isTTY: false,
    };
    let page = '';
    let otlp = 0;
    const checkThenStop = async () => {
      page = await (await fetch(printed.trim())).text();
      // The mesh is mounted: the OTLP/HTTP intake answers (an empty export is a valid one).
      otlp = (await fetch(`${printed.trim()}v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }))
        .status;
      controller.abort();
    };
    const result = await run(['console', '--port', '0'], { stdout, signal: controller.signal });
    expect(result.code).toBe(0);
    expect(printed).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\n$/);
    expect(page).toContain('a2a-console-token');
    expect(otlp).toBe(200);
  });

  it('without the package, fails with exit code 1 and the install command', async () => {
    const missing = Object.assign(new Error("Cannot find package '@a2aplane/a2a-console'"), { code: 'ERR_MODULE_NOT_FOUND' });
    const command = createConsoleCommand(() => Promise.reject(missing));
    const { io, err } = captureIo();
    const ctx = createCommandContext(io);
    await expect(command.run(ctx, [])).rejects.toMatchObject({ message: CONSOLE_INSTALL_HINT, exitCode: 1 });
    expect(err()).toBe('');
    expect(CONSOLE_INSTALL_HINT).toContain('npm i @a2aplane/a2a-console');
  });

  it('a bad option is a usage error (64)', async () => {
    const result = await run(['console', '--port', 'seventy']);
    expect(result.code).toBe(64);
    expect(result.err).toContain('--port');
  });
});
