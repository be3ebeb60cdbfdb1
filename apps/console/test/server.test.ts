import { mkdtemp, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ConsoleServer, type ConsoleServerOptions, createConsoleServer, sendJson } from '../src/server/index.js';
import { closeServer, listen } from './helpers/agents.js';

const TOKEN = 'test-session-token-0123456789';
const started: ConsoleServer[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((server) => server.close()));
});

async function startConsole(options: ConsoleServerOptions = {}): Promise<string> {
  const uiRoot = await mkdtemp(join(tmpdir(), 'a2a-console-ui-'));
  await writeFile(join(uiRoot, 'index.html'), '<html><head><meta name="a2a-console-token" content=""></head></html>');
  await writeFile(join(uiRoot, 'app.js'), 'export {};');
  const server = createConsoleServer({ uiRoot, sessionToken: TOKEN, ...options });
  started.push(server);
  return server.listen(0);
}

/** A raw request (fetch would not let a test set Host). */
function raw(url: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the console server', () => {
  it('serves the UI with the session token written in, and nothing outside its root', async () => {
    const url = await startConsole();
    const page = await fetch(`${url}/`);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(await page.text()).toContain(`content="${TOKEN}"`);
    expect((await fetch(`${url}/app.js`)).headers.get('content-type')).toContain('text/javascript');
    expect((await raw(url, '/%2e%2e/%2e%2e/etc/passwd.js', {})).status).toBe(404);
    expect((await fetch(`${url}/missing.js`)).status).toBe(404);
    expect((await raw(url, '/%E0%A4%A.js', {})).status).toBe(404);
  });

  it('answers /api only with the session token, and only to its own Host (no DNS rebinding)', async () => {
    const url = await startConsole();
    expect((await fetch(`${url}/api/relay/targets`, { method: 'POST' })).status).toBe(403);
    expect((await fetch(`${url}/api/relay/targets`, { method: 'POST', headers: { 'x-a2a-console-token': `${TOKEN}x` } })).status).toBe(403);
    const port = new URL(url).port;
    expect((await raw(url, '/', { host: `evil.example:${port}` })).status).toBe(421);
    expect((await raw(url, '/api/nothing', { host: `localhost:${port}`, 'x-a2a-console-token': TOKEN })).status).toBe(404);
  });

  it('mounts extra routes: /api ones behind the token, others (OTLP) without', async () => {
    const hits: string[] = [];
    const url = await startConsole({
      routes: [
        {
          method: 'POST',
          prefix: '/v1/traces',
          handle: (_req, res) => {
            hits.push('otlp');
            sendJson(res, 200, {});
          },
        },
        {
          method: 'GET',
          prefix: '/api/traces',
          handle: (_req, res) => {
            hits.push('traces');
            sendJson(res, 200, { traces: [] });
          },
        },
      ],
    });
    expect((await fetch(`${url}/v1/traces`, { method: 'POST', body: '{}' })).status).toBe(200);
    expect((await fetch(`${url}/api/traces`)).status).toBe(403);
    const listed = await fetch(`${url}/api/traces`, { headers: { 'x-a2a-console-token': TOKEN } });
    expect(await listed.json()).toEqual({ traces: [] });
    expect(hits).toEqual(['otlp', 'traces']);
  });
});

const api = (url: string, path: string, init: RequestInit = {}) =>
  fetch(`${url}${path}`, { ...init, headers: { 'x-a2a-console-token': TOKEN, ...(init.headers as Record<string, string>) } });
const allow = (url: string, urls: string[]) =>
  api(url, '/api/relay/targets', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ urls }) }).then(
    (r) => r.json() as Promise<{ accepted: string[]; refused: { url: string; reason: string }[] }>,
  );
const relay = (url: string, target: string, init: RequestInit & { agentHeaders?: Record<string, string> } = {}) =>
  api(url, '/api/relay/forward', {
    ...init,
    headers: { 'x-a2a-relay-url': target, 'x-a2a-relay-headers': JSON.stringify(init.agentHeaders ?? {}) },
  });

describe('the relay', () => {
  it('reaches only origins entered in this session, passing the agent-bound headers and nothing of the browser', async () => {
    const seen: { url: string; headers: Record<string, unknown>; body: string }[] = [];
    const agent = await listen((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ url: req.url ?? '', headers: req.headers, body });
        res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': 'a=b', 'x-internal': '1' }).end('{"ok":true}');
      });
    });
    try {
      const url = await startConsole({ relay: { allowLoopback: true } });
      const refused = await relay(url, `${agent.url}/a2a/jsonrpc`, { method: 'POST', body: '{}' });
      expect(refused.status).toBe(403);
      expect(seen).toHaveLength(0);

      expect((await allow(url, [`${agent.url}/`])).accepted).toEqual([agent.url]);
      const answer = await relay(url, `${agent.url}/a2a/jsonrpc?x=1`, {
        method: 'POST',
        body: '{"jsonrpc":"2.0"}',
        agentHeaders: { authorization: 'Bearer s3cret', 'content-type': 'application/json', cookie: 'session=1', host: 'elsewhere' },
      });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ ok: true });
      expect(answer.headers.get('set-cookie')).toBeNull();
      expect(answer.headers.get('x-internal')).toBeNull();
      expect(seen[0]).toMatchObject({ url: '/a2a/jsonrpc?x=1', body: '{"jsonrpc":"2.0"}' });
      expect(seen[0]?.headers).toMatchObject({ authorization: 'Bearer s3cret', host: new URL(agent.url).host });
      expect(seen[0]?.headers.cookie).toBeUndefined();
      expect(seen[0]?.headers['x-a2a-console-token']).toBeUndefined();
    } finally {
      await closeServer(agent.server);
    }
  });

  it('applies the SSRF rules: loopback and private agents are refused unless allowed', async () => {
    const url = await startConsole();
    const verdict = await allow(url, ['http://127.0.0.1:9/', 'http://10.0.0.8/', 'http://169.254.169.254/latest', 'file:///etc/passwd']);
    expect(verdict.accepted).toEqual([]);
    expect(verdict.refused.map((r) => r.reason)).toEqual([
      expect.stringContaining('loopback'),
      expect.stringContaining('private'),
      expect.stringMatching(/link-local|not allowed/),
      expect.stringContaining('scheme'),
    ]);
    // An origin listed by the registry passes the allowlist, and still the SSRF check.
    const listed = createConsoleServer({ sessionToken: TOKEN, relay: { isListedOrigin: (o) => o === 'http://127.0.0.1:9' } });
    started.push(listed);
    const listedUrl = await listed.listen(0);
    const answer = await relay(listedUrl, 'http://127.0.0.1:9/x');
    expect(answer.status).toBe(403);
    expect(((await answer.json()) as { error: { message: string } }).error.message).toContain('loopback');
  });

  it('never follows a redirect: a credential meant for one agent reaches no other host', async () => {
    const elsewhere: Record<string, unknown>[] = [];
    const other = await listen((req, res) => {
      elsewhere.push(req.headers);
      res.writeHead(200).end('{}');
    });
    const agent = await listen((_req, res) => res.writeHead(307, { location: `${other.url}/steal` }).end());
    try {
      const url = await startConsole({ relay: { allowLoopback: true } });
      await allow(url, [agent.url]);
      const answer = await relay(url, `${agent.url}/a2a/jsonrpc`, { method: 'POST', body: '{}', agentHeaders: { 'x-api-key': 'k-123' } });
      expect(answer.status).toBe(502);
      expect(((await answer.json()) as { error: { message: string } }).error.message).toContain('does not follow redirects');
      expect(elsewhere).toHaveLength(0);
      // The other host was never entered: the relay will not go there either.
      expect((await relay(url, `${other.url}/steal`, { agentHeaders: { 'x-api-key': 'k-123' } })).status).toBe(403);
      expect(elsewhere).toHaveLength(0);
    } finally {
      await closeServer(agent.server);
      await closeServer(other.server);
    }
  });

  it('bounds bodies, time and concurrency', async () => {
    const hanging: (() => void)[] = [];
    const agent = await listen((req, res) => {
      if (req.url === '/slow') hanging.push(() => res.writeHead(200).end('late'));
      else res.writeHead(200).end('fast');
    });
    try {
      const url = await startConsole({ relay: { allowLoopback: true, maxBodyBytes: 100, maxConcurrent: 1, timeoutMs: 300 } });
      await allow(url, [agent.url]);
      expect((await relay(url, `${agent.url}/a`, { method: 'POST', body: 'x'.repeat(101) })).status).toBe(413);
      const slow = relay(url, `${agent.url}/slow`);
      while (hanging.length === 0) await new Promise((r) => setTimeout(r, 10));
      expect((await relay(url, `${agent.url}/a`)).status).toBe(429);
      expect((await slow).status).toBe(504);
      expect(await (await relay(url, `${agent.url}/a`)).text()).toBe('fast');
    } finally {
      for (const answer of hanging) answer();
      await closeServer(agent.server);
    }
  });
});
