import { exportPublicJwk, generateKeyPair } from '@a2aplane/a2a-identity';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../src/index.js';
import { freePort } from '@a2aplane/test-utils';
import { run, startTestAgent, type TestAgent, tempDir } from './helpers.js';

let signed: TestAgent;
let unsigned: TestAgent;
let tampered: TestAgent;
let dir: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  [signed, unsigned, tampered] = await Promise.all([startTestAgent('signed'), startTestAgent('unsigned'), startTestAgent('tampered')]);
  dir = await tempDir();
});
afterAll(async () => {
  await Promise.all([signed?.close(), unsigned?.close(), tampered?.close()]);
  await dir?.remove();
});

describe('a2a card (spec §8.2 discovery, §8.4.3 verification)', () => {
  it('a signed card with a loopback jku is valid with --allow-insecure: exit 0, card and AgentID printed', async () => {
    const { code, out } = await run(['card', signed.url, '--allow-insecure']);
    expect(code).toBe(EXIT_CODES.ok);
    expect(out).toContain('Test Echo');
    expect(out).toContain(`${signed.url}/a2a/jsonrpc`);
    expect(out).toContain('signature valid');
    expect(out).toMatch(/AgentID [0-9a-f]{64}/);
  });

  it('without --allow-insecure an http jku is not fetched: untrusted, exit 2 with a hint', async () => {
    const { code, err } = await run(['card', signed.url]);
    expect(code).toBe(EXIT_CODES.invalidSignature);
    expect(err).toContain('not trusted');
    expect(err).toContain('--allow-insecure');
  });

  it('--key pins the key: the right public JWK gives 0, another key gives 2', async () => {
    const right = dir.file('right.jwk');
    const wrong = dir.file('wrong.jwk');
    await writeFile(right, JSON.stringify(exportPublicJwk(signed.key)));
    await writeFile(wrong, JSON.stringify({ keys: [exportPublicJwk(generateKeyPair('EdDSA'))] }));
    expect((await run(['card', signed.url, '--key', right])).code).toBe(EXIT_CODES.ok);
    expect((await run(['card', signed.url, '--key', wrong])).code).toBe(EXIT_CODES.invalidSignature);
  });

  it('a tampered card exits 2 and says tampered', async () => {
    const { code, out, err } = await run(['card', tampered.url, '--allow-insecure']);
    expect(code).toBe(EXIT_CODES.invalidSignature);
    expect(out).toContain('Evil Echo');
    expect(err).toContain('tampered');
  });

  it('an unsigned card exits 3', async () => {
    const { code, err } = await run(['card', unsigned.url, '--allow-insecure']);
    expect(code).toBe(EXIT_CODES.unsigned);
    expect(err).toContain('not signed');
  });

  it('--json prints the verification and the card', async () => {
    const { code, out } = await run(['card', signed.url, '--allow-insecure', '--json']);
    expect(code).toBe(0);
    const parsed = JSON.parse(out) as { verification: { status: string; agentId: string }; card: { name: string }; url: string };
    expect(parsed.verification.status).toBe('valid');
    expect(parsed.card.name).toBe('Test Echo');
    expect(parsed.url).toBe(`${signed.url}/.well-known/agent-card.json`);
  });

  it('an unreachable agent is one line "connection refused", exit 1', async () => {
    const port = await freePort();
    const { code, err, out } = await run(['card', `http://127.0.0.1:${port}`]);
    expect(code).toBe(EXIT_CODES.failure);
    expect(out).toBe('');
    expect(err).toBe(`error: cannot reach http://127.0.0.1:${port}: connection refused\n`);
  });

  it('a bad URL is a usage error, exit 64, no stack trace', async () => {
    const { code, err } = await run(['card', 'not a url']);
    expect(code).toBe(EXIT_CODES.usage);
    expect(err.trim().split('\n')).toHaveLength(1);
    expect(err).toContain('invalid URL');
    expect((await run(['card', 'ftp://example.com'])).code).toBe(EXIT_CODES.usage);
    // A host and port without the scheme gets the fix in the message.
    const schemeless = await run(['card', 'localhost:8080']);
    expect(schemeless.code).toBe(EXIT_CODES.usage);
    expect(schemeless.err).toBe(
      'error: card: invalid URL "localhost:8080"; expected an absolute http:// or https:// URL, such as http://localhost:8080\n',
    );
  });

  it('a card that is not JSON is one line, exit 1', async () => {
    const http = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('<html>not a card</html>');
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = http.address() as AddressInfo;
      const { code, err } = await run(['card', `http://127.0.0.1:${port}`]);
      expect(code).toBe(EXIT_CODES.failure);
      expect(err).toBe(`error: Agent card at http://127.0.0.1:${port}/.well-known/agent-card.json is not valid JSON\n`);
    } finally {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  });

  it.each([
    ['an empty signature', { protected: 'eyJhbGciOiJFZERTQSJ9', signature: '' }],
    ['an empty protected header', { protected: '', signature: 'c2ln' }],
  ])('a card with %s exits 2 (malformed signature), with --json too', async (_name, signature) => {
    const card = { ...(await (await fetch(`${unsigned.url}/.well-known/agent-card.json`)).json()), signatures: [signature] };
    const http = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(card));
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
      const { code, err } = await run(['card', url, '--allow-insecure']);
      expect(code).toBe(EXIT_CODES.invalidSignature);
      expect(err).toContain('malformed');
      const json = await run(['card', url, '--json']);
      expect(json.code).toBe(EXIT_CODES.invalidSignature);
      expect((JSON.parse(json.out) as { verification: { status: string } }).verification.status).toBe('malformed');
    } finally {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  });

  it('a missing --key file is exit 1 with the path', async () => {
    const { code, err } = await run(['card', signed.url, '--key', dir.file('nope.jwk')]);
    expect(code).toBe(EXIT_CODES.failure);
    expect(err).toContain('nope.jwk: no such file');
  });
});
