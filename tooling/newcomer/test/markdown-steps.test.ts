import { describe, expect, it } from 'vitest';
import { missingExpectations, readGuide, withPorts } from '../src/markdown-steps.js';
import { withTarballs } from '../src/scratch-project.js';

const guide = [
  '<!-- newcomer ports: 4000 4001 -->',
  '```sh run',
  '# a comment',
  'npm install @a2aplane/a2a-client zod',
  '```',
  '```ts file=call.ts',
  "console.log('hi');",
  '```',
  '```sh run background ready=listening_on',
  'npx a2a serve --port 4000',
  '```',
  '```text expect',
  'COMPLETED … hello',
  '```',
  '```ts',
  'not a step',
  '```',
].join('\n');

describe('readGuide', () => {
  it('reads files, commands, background commands and expectations in order, and the ports to replace', () => {
    const { steps, ports } = readGuide(guide);
    expect(ports).toEqual([4000, 4001]);
    expect(steps).toEqual([
      { kind: 'run', line: 2, commands: ['npm install @a2aplane/a2a-client zod'] },
      { kind: 'file', line: 6, path: 'call.ts', content: "console.log('hi');\n" },
      { kind: 'background', line: 9, command: 'npx a2a serve --port 4000', ready: 'listening on' },
      { kind: 'expect', line: 12, lines: ['COMPLETED … hello'] },
    ]);
  });

  it('refuses a background block without ready=', () => {
    expect(() => readGuide('```sh run background\nnpx a2a serve\n```')).toThrow(/ready=TEXT/);
  });
});

describe('missingExpectations', () => {
  it('finds each line in order, with … for anything', () => {
    expect(missingExpectations('a\nTASK_STATE_COMPLETED hello agents\nz', ['COMPLETED … agents', 'z'])).toEqual([]);
    expect(missingExpectations('z\nCOMPLETED x', ['COMPLETED', 'z'])).toEqual(['z']);
    expect(missingExpectations('(1+1)', ['(1+1)'])).toEqual([]);
  });
});

describe('withPorts and withTarballs', () => {
  it('replaces whole port numbers only', () => {
    expect(withPorts('http://127.0.0.1:4000 and 40001 and 1.4000', new Map([[4000, 51234]]))).toBe(
      'http://127.0.0.1:51234 and 40001 and 1.4000',
    );
  });

  it('installs our packages from their tarballs and leaves every other command alone', () => {
    const packed = { tarballs: new Map([['@a2aplane/a2a-client', '/t/client.tgz']]) };
    expect(withTarballs('npm install @a2aplane/a2a-client@^0.1 zod', packed)).toBe('npm install /t/client.tgz zod');
    expect(withTarballs('npx tsx @a2aplane/a2a-client', packed)).toBe('npx tsx @a2aplane/a2a-client');
  });
});
