import { describe, expect, it } from 'vitest';
import { CLI_VERSION, EXIT_CODES } from '../src/index.js';
import { run } from './helpers.js';

const COMMANDS = [
  'card',
  'send',
  'get',
  'list',
  'cancel',
  'subscribe',
  'keygen',
  'sign-card',
  'verify-card',
  'serve',
  'mcp',
  'db',
  'registry',
  'console',
];

describe('a2a command line', () => {
  it('--help lists every command and the exit codes', async () => {
    const { code, out } = await run(['--help']);
    expect(code).toBe(0);
    for (const name of COMMANDS) expect(out).toContain(`  ${name} `);
    expect(out).toContain('Exit codes:');
  });

  it('every command has its own --help', async () => {
    for (const name of COMMANDS) {
      const { code, out } = await run([name, '--help']);
      expect(code).toBe(0);
      expect(out).toContain(`Usage: a2a ${name}`);
      expect((await run(['help', name])).out).toBe(out);
    }
  });

  it('no command prints help and exits 64; an unknown command exits 64 in one line', async () => {
    expect((await run([])).code).toBe(EXIT_CODES.usage);
    const unknown = await run(['frobnicate']);
    expect(unknown.code).toBe(EXIT_CODES.usage);
    expect(unknown.err).toBe(`a2a: unknown command "frobnicate"; commands: ${COMMANDS.join(', ')}\n`);
  });

  it('--version', async () => {
    expect((await run(['--version'])).out).toBe(`${CLI_VERSION}\n`);
  });

  it('colors only on a TTY without NO_COLOR', async () => {
    const tty = { isTTY: true, write: () => true };
    let colored = '';
    const io = (env: Record<string, string>) => ({
      env,
      stdout: tty,
      stderr: {
        isTTY: true,
        write: (s: string) => {
          colored += s;
          return true;
        },
      },
    });
    await run(['get', 'bad url', 'x'], io({}));
    expect(colored).toContain('\u001b[31merror\u001b[39m');
    colored = '';
    await run(['get', 'bad url', 'x'], io({ NO_COLOR: '1' }));
    expect(colored).not.toContain('\u001b[');
    const plain = await run(['get', 'bad url', 'x']);
    expect(plain.err).toMatch(/^error: get: invalid URL/);
  });
});
