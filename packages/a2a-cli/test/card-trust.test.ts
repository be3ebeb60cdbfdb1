import { createServer, type Server } from 'node:http';
import { type CardCase, cardCase, closeServer, JWKS_PATH, listenOnLoopback } from '@a2aplane/test-utils';
import { createJwks, exportPublicJwk, generateKeyPair } from '@a2aplane/a2a-identity';
import { createAgentCard } from '@a2aplane/a2a-server-express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../src/index.js';
import { run, tempDir } from './helpers.js';

// One scripted agent that serves whichever card case the test sets; every A2A call is counted.
const agent = generateKeyPair('EdDSA');
const victim = generateKeyPair('EdDSA');
let current: CardCase = 'valid';
let rpcCalls = 0;
let url = '';
let foreignUrl = '';
const servers: Server[] = [];

async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  return listenOnLoopback(server);
}

beforeAll(async () => {
  foreignUrl = await listen((req, res) => {
    res.writeHead(req.url === JWKS_PATH ? 200 : 404, { 'content-type': 'application/json' });
    res.end(req.url === JWKS_PATH ? JSON.stringify(createJwks([agent])) : '{}');
  });
  url = await listen((req, res) => {
    const card = createAgentCard({ baseUrl: url, name: 'Scripted', description: 'card cases', skills: [] });
    const served = cardCase(current, card, url, { agent, victim, foreignOrigin: foreignUrl });
    if (req.url === '/.well-known/agent-card.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(served.text);
    }
    if (req.url === JWKS_PATH) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify(served.jwks));
    }
    rpcCalls++;
    req.resume();
    res.writeHead(500).end();
  });
});
afterAll(async () => {
  await Promise.all(servers.map(closeServer));
});

describe('a2a send/get/list/cancel/subscribe verify the agent card before sending anything', () => {
  const commands: Array<[string, string[]]> = [
    ['send', ['hello']],
    ['get', ['task-1']],
    ['list', []],
    ['cancel', ['task-1']],
    ['subscribe', ['task-1']],
  ];

  it.each([
    ['tampered', 'tampered'],
    ['swapped-key', 'tampered'],
    ['agent-id-mismatch', 'agent-id-mismatch'],
    ['alg-none', 'unsupported-algorithm'],
    ['unknown-crit', 'unsupported-algorithm'],
    ['foreign-jku', 'untrusted-key'],
  ] as const)('a %s card: every command exits 2 (%s) and sends no A2A request', async (kind, status) => {
    current = kind;
    rpcCalls = 0;
    for (const [command, rest] of commands) {
      const result = await run([command, url, ...rest, '--allow-insecure']);
      expect(result.code, `${command}: ${result.err}`).toBe(EXIT_CODES.invalidSignature);
      expect(result.err).toContain(`signature status "${status}"`);
    }
    expect(rpcCalls).toBe(0);
  });

  it('a valid card gets through to the agent (which answers 500 here); without --allow-insecure its loopback jku is refused', async () => {
    current = 'valid';
    rpcCalls = 0;
    expect((await run(['get', url, 'task-1', '--allow-insecure'])).code).toBe(EXIT_CODES.failure);
    expect(rpcCalls).toBeGreaterThan(0);
    rpcCalls = 0;
    const refused = await run(['get', url, 'task-1']);
    expect(refused.code).toBe(EXIT_CODES.invalidSignature);
    expect(refused.err).toContain('untrusted-key');
    expect(rpcCalls).toBe(0);
  });

  it('--jku-prefix trusts a JWKS on another origin', async () => {
    current = 'foreign-jku';
    rpcCalls = 0;
    expect((await run(['get', url, 'task-1', '--allow-insecure', '--jku-prefix', `${foreignUrl}/`])).code).toBe(EXIT_CODES.failure);
    expect(rpcCalls).toBeGreaterThan(0);
  });

  it('--key pins the key (no jku needed); --require-signed refuses an unsigned card', async () => {
    const dir = await tempDir();
    try {
      const keyFile = dir.file('agent.jwk');
      const { writeFile } = await import('node:fs/promises');
      await writeFile(keyFile, JSON.stringify(exportPublicJwk(agent)));
      current = 'valid';
      rpcCalls = 0;
      expect((await run(['get', url, 'task-1', '--key', keyFile])).code).toBe(EXIT_CODES.failure);
      expect(rpcCalls).toBeGreaterThan(0);
      current = 'unsigned';
      rpcCalls = 0;
      expect((await run(['get', url, 'task-1'])).code).toBe(EXIT_CODES.failure);
      expect(rpcCalls).toBeGreaterThan(0);
      rpcCalls = 0;
      const strict = await run(['get', url, 'task-1', '--require-signed']);
      expect(strict.code).toBe(EXIT_CODES.invalidSignature);
      expect(rpcCalls).toBe(0);
    } finally {
      await dir.remove();
    }
  });
});

describe('a2a serve --delegate-to verifies the delegate card the same way', () => {
  it.each(['tampered', 'agent-id-mismatch', 'alg-none', 'unknown-crit', 'foreign-jku', 'swapped-key'] as const)(
    'a %s delegate card: the task fails with the signature status and nothing reaches the delegate',
    async (kind) => {
      const { startServeAgent } = await import('../src/agent.js');
      const { materializeConfig } = await import('@a2aplane/a2a-governance');
      const front = await startServeAgent({
        config: materializeConfig({}, { knownSelectors: [] }),
        delegateTo: url,
        delegateTrust: { allowInsecureLoopback: true },
      });
      try {
        current = kind;
        rpcCalls = 0;
        const sent = await run(['send', front.url, 'through', '--json', '--allow-insecure']);
        expect(sent.code).toBe(EXIT_CODES.taskUnsuccessful); // the delegation failed, so the task did
        const task = (JSON.parse(sent.out) as { task: { status: { state: string; message?: { parts: Array<{ text?: string }> } } } }).task;
        expect(task.status.state).toBe('TASK_STATE_FAILED');
        expect(JSON.stringify(task.status)).toContain('was rejected: signature status');
        expect(rpcCalls).toBe(0);
      } finally {
        await front.close();
      }
    },
  );
});
