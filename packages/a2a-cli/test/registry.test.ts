import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RegistryService, startRegistryService } from '@a2aplane/a2a-registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import { run } from './helpers.js';

const TOKEN = 'cli-operator-token-0123456789';
let dir: string;
let site: Server;
let origin: string;
let served = '{}';
let registry: RegistryService;
let agentId: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'a2a-registry-cli-'));
  site = createServer((req, res) => {
    if (req.url === '/.well-known/agent-card.json') res.writeHead(200, { 'content-type': 'application/json' }).end(served);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  registry = await startRegistryService({ operatorTokens: { operator: TOKEN }, registryOptions: { allowLoopback: true }, prober: false });
  // The card is signed by the CLI itself: keygen, then sign-card --agent-id.
  const keyFile = join(dir, 'key.jwk');
  const keygen = await run(['keygen', '--out', keyFile, '--json']);
  expect(keygen.code).toBe(0);
  const generated = JSON.parse(keygen.out) as { publicJwk: object; agentId: string };
  agentId = generated.agentId;
  await writeFile(join(dir, 'jwks.json'), JSON.stringify({ keys: [generated.publicJwk] }));
  const card = {
    name: 'cli agent',
    description: 'enrolled from the command line',
    version: '1.0.0',
    supportedInterfaces: [{ url: `${origin}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'summarize', name: 'Summarize', description: 'summaries', tags: ['text'] }],
  };
  await writeFile(join(dir, 'card.json'), JSON.stringify(card));
  const signed = await run(['sign-card', join(dir, 'card.json'), '--key', keyFile, '--agent-id', '--out', join(dir, 'signed.json')]);
  expect(signed.code).toBe(0);
  served = await readFile(join(dir, 'signed.json'), 'utf8');
});

afterAll(async () => {
  await registry.close();
  site.closeAllConnections();
  await new Promise<void>((resolve) => site.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

const env = { A2A_REGISTRY_TOKEN: TOKEN };

describe('a2a registry', () => {
  it('enrolls a card signed by a2a sign-card, finds it by skill, revokes it, and then refuses it (exit 2)', async () => {
    const enrolled = await run(
      ['registry', 'enroll', join(dir, 'signed.json'), '--registry', registry.url, '--jwks', join(dir, 'jwks.json'), '--tier', 'gold'],
      { env },
    );
    expect(enrolled).toMatchObject({ code: 0, err: '' });
    expect(enrolled.out).toContain(`enrolled: ${agentId}  cli agent  active`);
    const found = await run(['registry', 'search', '--registry', registry.url, '--skill', 'summarize', '--json']);
    expect(found.code).toBe(0);
    expect(JSON.parse(found.out).results[0]['x-a2aplane']).toMatchObject({ agentId, tier: 'gold' });
    const revoked = await run(['registry', 'revoke', agentId, '--registry', registry.url, '--reason', 'leaked'], { env });
    expect(revoked.code).toBe(0);
    expect(revoked.out).toContain('revoked');
    const again = await run(
      ['registry', 'enroll', join(dir, 'signed.json'), '--registry', registry.url, '--jwks', join(dir, 'jwks.json')],
      { env },
    );
    expect(again.code).toBe(2);
    expect(again.err).toContain('refused: revoked');
    const none = await run(['registry', 'search', '--registry', registry.url, '--skill', 'summarize']);
    expect(none).toMatchObject({ code: 0, out: '' });
  });

  it('needs the operator credential from the environment, a registry URL and a subcommand (exit 64)', async () => {
    expect((await run(['registry', 'enroll', join(dir, 'signed.json'), '--registry', registry.url])).code).toBe(64);
    expect((await run(['registry', 'search'])).code).toBe(64);
    expect((await run(['registry'])).code).toBe(64);
    expect((await run(['registry', 'revoke', 'not-an-id', '--registry', registry.url], { env })).code).toBe(64);
    const wrong = await run(['registry', 'enroll', join(dir, 'signed.json'), '--registry', registry.url], {
      env: { A2A_REGISTRY_TOKEN: 'wrong-token-0123456789' },
    });
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain('HTTP 401');
  });
});

describe('a2a registry serve', () => {
  it('runs a registry that accepts the operator credential from the environment, until the signal aborts', async () => {
    const stop = new AbortController();
    let out = '';
    const running = runCli(['registry', 'serve', '--allow-loopback', '--no-probe'], {
      stdout: { write: (text: string) => (out += text) },
      stderr: { write: () => true },
      env,
      fetch: globalThis.fetch,
      signal: stop.signal,
    });
    while (!out.includes('\n')) await new Promise((resolve) => setTimeout(resolve, 20));
    const url = out.trim();
    expect(await (await fetch(`${url}/.well-known/ai-catalog.json`)).json()).toMatchObject({ specVersion: '1.0', entries: [] });
    const enrolled = await run(['registry', 'enroll', join(dir, 'signed.json'), '--registry', url, '--jwks', join(dir, 'jwks.json')], {
      env,
    });
    // The card's key was revoked in the other registry only: this one enrolls it.
    expect(enrolled.code).toBe(0);
    stop.abort();
    expect(await running).toBe(0);
    await expect(fetch(`${url}/agents`)).rejects.toThrow();
  });

  const serveUntilStopped = async (argv: string[]) => {
    const stop = new AbortController();
    let out = '';
    let err = '';
    const running = runCli(['registry', 'serve', ...argv], {
      stdout: { write: (text: string) => (out += text) },
      stderr: { write: (text: string) => (err += text) },
      env,
      fetch: globalThis.fetch,
      signal: stop.signal,
    });
    const exited = running.then((code) => ({ code }));
    while (!out.includes('\n')) {
      const early = await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 20))]);
      if (early) return { url: '', stop: async () => (early as { code: number }).code, err: () => err };
    }
    return {
      url: out.trim(),
      stop: async () => {
        stop.abort();
        return await running;
      },
      err: () => err,
    };
  };

  it('--data keeps the registry in a file: what one run enrolled, the next run still has', async () => {
    const data = join(dir, 'registry-data.json');
    const first = await serveUntilStopped(['--allow-loopback', '--no-probe', '--data', data]);
    const enrolled = await run(
      ['registry', 'enroll', join(dir, 'signed.json'), '--registry', first.url, '--jwks', join(dir, 'jwks.json')],
      {
        env,
      },
    );
    expect(enrolled.code).toBe(0);
    expect(await first.stop()).toBe(0);
    const second = await serveUntilStopped(['--allow-loopback', '--no-probe', '--data', data]);
    const found = await run(['registry', 'search', '--registry', second.url, '--skill', 'summarize', '--json']);
    expect(JSON.parse(found.out).results.map((entry: { 'x-a2aplane': { agentId: string } }) => entry['x-a2aplane'].agentId)).toEqual([
      agentId,
    ]);
    expect(await second.stop()).toBe(0);
  });

  it('--data with a corrupt file stops with a clear error (exit 1) and leaves the file alone', async () => {
    const data = join(dir, 'corrupt.json');
    await writeFile(data, 'not json');
    const attempt = await serveUntilStopped(['--no-probe', '--data', data]);
    expect(attempt.url).toBe('');
    expect(await attempt.stop()).toBe(1);
    expect(attempt.err()).toContain(`registry file ${data}: is not JSON`);
    expect(await readFile(data, 'utf8')).toBe('not json');
  });
});
