import { afterEach, describe, expect, it } from 'vitest';
import { createA2AServer, createNodeHttpHandler, createTaskUpdater, DEFAULT_JWKS_PATH } from '../src/index.js';
import { createGate, echoExecutor, publicDnsWebhookGuard, rest, startServer, type TestServer, testCard, userMessage } from './helpers.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Json = Record<string, unknown>;
const errorOf = (body: Json) => body.error as { code: number; status: string; message: string; details: Json[] };

describe('HTTP+JSON binding (spec §11)', () => {
  it('POST /message:send, GET /tasks/{id}, GET /tasks, with and without tenant', async () => {
    server = await startServer({ executor: echoExecutor });
    const sent = await rest(server.url, 'POST', '/message:send', { message: userMessage('hi') });
    expect(sent.status).toBe(200);
    const task = (sent.body as Json).task as Json;
    expect((task.status as Json).state).toBe('TASK_STATE_COMPLETED');
    const got = await rest(server.url, 'GET', `/tasks/${task.id}?historyLength=0`);
    expect(got.body.id).toBe(task.id);
    expect(got.body.history).toBeUndefined();
    const listed = await rest(server.url, 'GET', '/tasks?pageSize=10&includeArtifacts=true');
    expect(listed.body.totalSize).toBe(1);
    expect(((listed.body.tasks as Json[])[0] as Json).artifacts).toBeDefined();
    // Tenant isolation: the same id under another tenant does not exist.
    const otherTenant = await rest(server.url, 'GET', `/acme/tasks/${task.id}`);
    expect(otherTenant.status).toBe(404);
    const inTenant = await rest(server.url, 'POST', '/acme/message:send', { message: userMessage('hi') });
    const tenantTask = (inTenant.body as Json).task as Json;
    expect((await rest(server.url, 'GET', `/acme/tasks/${tenantTask.id}`)).status).toBe(200);
    expect((await rest(server.url, 'GET', `/tasks/${tenantTask.id}`)).status).toBe(404);
  });

  it('requests may be application/json or application/a2a+json; responses are application/a2a+json (§11.1)', async () => {
    server = await startServer({ executor: echoExecutor });
    const ok = await fetch(`${server.url}/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/a2a+json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ message: userMessage('hi') }),
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('application/a2a+json');
    const plain = await fetch(`${server.url}/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', 'A2A-Version': '1.0' },
      body: JSON.stringify({ message: userMessage('hi') }),
    });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toBe('application/a2a+json');
    // Errors too.
    const missing = await fetch(`${server.url}/a2a/rest/tasks/missing`, { headers: { 'A2A-Version': '1.0' } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('application/a2a+json');
  });

  it('another request media type is ContentTypeNotSupportedError as §5.4 maps it: 400 Bad Request', async () => {
    server = await startServer({ executor: echoExecutor });
    const bad = await fetch(`${server.url}/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toBe('application/a2a+json');
    const error = errorOf((await bad.json()) as Json);
    expect(error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(error.details[0]).toMatchObject({ reason: 'CONTENT_TYPE_NOT_SUPPORTED', domain: 'a2a-protocol.org' });
  });

  it('error bodies follow §11.6 with §5.4 statuses', async () => {
    server = await startServer({ executor: echoExecutor, card: testCard({ capabilities: { streaming: true, pushNotifications: false } }) });
    const notFound = await rest(server.url, 'GET', '/tasks/missing');
    expect(notFound.status).toBe(404);
    expect(errorOf(notFound.body)).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    expect(errorOf(notFound.body).details[0]).toMatchObject({ reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' });
    const invalid = await rest(server.url, 'POST', '/message:send', { message: { role: 'ROLE_USER' } });
    expect(invalid.status).toBe(400);
    expect(errorOf(invalid.body).status).toBe('INVALID_ARGUMENT');
    const push = await rest(server.url, 'GET', '/tasks/t1/pushNotificationConfigs');
    expect(push.status).toBe(400);
    expect(errorOf(push.body).details[0]?.reason).toBe('PUSH_NOTIFICATION_NOT_SUPPORTED');
    const parse = await fetch(`${server.url}/a2a/rest/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{x',
    });
    expect(parse.status).toBe(400);
    const unknown = await rest(server.url, 'GET', '/nothing/here/at/all');
    expect(unknown.status).toBe(404);
    const wrongVerb = await rest(server.url, 'DELETE', '/tasks');
    expect(wrongVerb.status).toBe(405);
    const version = await rest(server.url, 'GET', '/tasks', undefined, { 'A2A-Version': '3.0' });
    expect(version.status).toBe(400);
    expect(errorOf(version.body).details[0]?.reason).toBe('VERSION_NOT_SUPPORTED');
  });

  it('POST /tasks/{id}:cancel and push config routes', async () => {
    const gate = createGate();
    server = await startServer({
      checkWebhookUrl: publicDnsWebhookGuard,
      executor: {
        async execute(context, events) {
          const t = createTaskUpdater(context, events);
          t.submit();
          await Promise.race([gate.wait, new Promise((r) => context.signal.addEventListener('abort', r))]);
        },
      },
    });
    const sent = await rest(server.url, 'POST', '/message:send', { message: userMessage('x'), configuration: { returnImmediately: true } });
    const id = ((sent.body as Json).task as Json).id as string;
    const created = await rest(server.url, 'POST', `/tasks/${id}/pushNotificationConfigs`, { url: 'https://hook.example.com' });
    expect(created.status).toBe(200);
    const configId = created.body.id as string;
    expect((await rest(server.url, 'GET', `/tasks/${id}/pushNotificationConfigs/${configId}`)).body.url).toBe('https://hook.example.com');
    expect(((await rest(server.url, 'GET', `/tasks/${id}/pushNotificationConfigs`)).body.configs as Json[]).length).toBe(1);
    expect((await rest(server.url, 'DELETE', `/tasks/${id}/pushNotificationConfigs/${configId}`)).status).toBe(200);
    const canceled = await rest(server.url, 'POST', `/tasks/${id}:cancel`, {});
    expect((canceled.body.status as Json).state).toBe('TASK_STATE_CANCELED');
    const again = await rest(server.url, 'POST', `/tasks/${id}:cancel`, {});
    expect(again.status).toBe(400);
    expect(errorOf(again.body).details[0]?.reason).toBe('TASK_NOT_CANCELABLE');
    gate.open();
  });

  it('GET /extendedAgentCard needs authentication; 401 with the UNAUTHENTICATED reason', async () => {
    server = await startServer({ executor: echoExecutor });
    const anonymous = await rest(server.url, 'GET', '/extendedAgentCard');
    expect(anonymous.status).toBe(401);
    expect(errorOf(anonymous.body).details[0]?.reason).toBe('UNAUTHENTICATED');
  });

  it('control-plane errors map to 429 with Retry-After', async () => {
    server = await startServer({ executor: echoExecutor, rateLimiter: { take: () => ({ ok: false, retryAfterSeconds: 3 }) } });
    const limited = await rest(server.url, 'GET', '/tasks');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3');
  });

  it('webhook URL check rejects a push config with InvalidParams', async () => {
    server = await startServer({ executor: echoExecutor, checkWebhookUrl: async () => ({ ok: false, reason: 'private address' }) });
    const sent = await rest(server.url, 'POST', '/message:send', { message: userMessage('x') });
    const id = ((sent.body as Json).task as Json).id as string;
    const created = await rest(server.url, 'POST', `/tasks/${id}/pushNotificationConfigs`, { url: 'http://10.0.0.1/' });
    expect(created.status).toBe(400);
    expect(errorOf(created.body).message).toContain('private address');
  });
});

describe('agent card (spec §8)', () => {
  it('serves the card with ETag and Cache-Control; If-None-Match gives 304', async () => {
    server = await startServer({ executor: echoExecutor });
    const first = await fetch(`${server.url}/.well-known/agent-card.json`);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^".+"$/);
    expect(first.headers.get('cache-control')).toContain('max-age=');
    const card = (await first.json()) as Json;
    expect((card.supportedInterfaces as Json[]).map((i) => i.protocolBinding)).toEqual(['JSONRPC', 'HTTP+JSON']);
    const second = await fetch(`${server.url}/.well-known/agent-card.json`, { headers: { 'if-none-match': etag as string } });
    expect(second.status).toBe(304);
  });

  it('serves Last-Modified next to the ETag; If-Modified-Since gives 304 unless If-None-Match says otherwise', async () => {
    server = await startServer({ executor: echoExecutor });
    const url = `${server.url}/.well-known/agent-card.json`;
    const first = await fetch(url);
    const lastModified = first.headers.get('last-modified') as string;
    expect(new Date(lastModified).toUTCString()).toBe(lastModified);
    const since = async (date: string, extra: Record<string, string> = {}) =>
      (await fetch(url, { headers: { 'if-modified-since': date, ...extra } })).status;
    expect(await since(lastModified)).toBe(304);
    expect(await since(new Date(Date.parse(lastModified) + 60_000).toUTCString())).toBe(304);
    expect(await since(new Date(Date.parse(lastModified) - 1000).toUTCString())).toBe(200);
    expect(await since('not a date')).toBe(200);
    // If-None-Match wins over If-Modified-Since (RFC 9110 §13.1.3).
    expect(await since(lastModified, { 'if-none-match': '"other"' })).toBe(200);
    const notModified = await fetch(url, { headers: { 'if-modified-since': lastModified } });
    expect(notModified.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(notModified.headers.get('last-modified')).toBe(lastModified);
  });

  it('signs the card once with the configured signer and serves the cached bytes', async () => {
    let calls = 0;
    server = await startServer(
      { executor: echoExecutor },
      {
        cardSigner: {
          sign(card) {
            calls++;
            return { json: JSON.stringify({ ...card, signatures: [{ protected: 'p', signature: 's' }] }) };
          },
        },
      },
    );
    const a = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as Json;
    await fetch(`${server.url}/.well-known/agent-card.json`);
    expect(a.signatures).toEqual([{ protected: 'p', signature: 's' }]);
    expect(calls).toBe(1);
  });

  it('serves the JWKS a signed card points at (GET and HEAD, ETag revalidation), and only when configured', async () => {
    const jwks = { keys: [{ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', kid: 'k1' }] };
    server = await startServer({ executor: echoExecutor }, { jwks });
    const got = await fetch(`${server.url}${DEFAULT_JWKS_PATH}`);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toBe('application/jwk-set+json');
    expect(got.headers.get('cache-control')).toBe('public, max-age=300');
    expect(await got.json()).toEqual(jwks);
    const etag = got.headers.get('etag') as string;
    expect(etag).toMatch(/^"[\w-]{32}"$/);
    expect((await fetch(`${server.url}${DEFAULT_JWKS_PATH}`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    const head = await fetch(`${server.url}${DEFAULT_JWKS_PATH}`, { method: 'HEAD' });
    expect([head.status, await head.text()]).toEqual([200, '']);
    expect((await fetch(`${server.url}${DEFAULT_JWKS_PATH}`, { method: 'POST' })).status).toBe(405);
    await server.close();

    server = await startServer({ executor: echoExecutor }, { jwks, jwksPath: '/keys.json' });
    expect((await fetch(`${server.url}/keys.json`)).status).toBe(200);
    expect((await fetch(`${server.url}${DEFAULT_JWKS_PATH}`)).status).toBe(404);
    await server.close();

    server = await startServer({ executor: echoExecutor });
    expect((await fetch(`${server.url}${DEFAULT_JWKS_PATH}`)).status).toBe(404);
  });

  it('refuses a JWKS that is not one, or that holds a private key, when the handler is created', () => {
    const a2a = createA2AServer({ card: testCard(), executor: echoExecutor });
    expect(() => createNodeHttpHandler(a2a, { jwks: { keys: 'nope' } as unknown as { keys: object[] } })).toThrow(TypeError);
    expect(() => createNodeHttpHandler(a2a, { jwks: { keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'x', d: 'secret' }] } })).toThrow(
      /private "d"/,
    );
  });
});
