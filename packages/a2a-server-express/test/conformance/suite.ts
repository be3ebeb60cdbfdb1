import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse, userMessage, V1 } from '../helpers.js';
import { ALLOWED_ORIGIN } from './agent.js';
import type { Host } from './hosts.js';

// Replies are read as loose JSON: the assertions are what checks their shape.
// biome-ignore lint/suspicious/noExplicitAny: see above
type Json = Record<string, any>;

let nextId = 0;
async function rpc(url: string, method: string, params: unknown, init: { headers?: Record<string, string> } = {}) {
  const response = await fetch(`${url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...V1, ...init.headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++nextId, method, params }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Json };
}

async function rest(url: string, verb: string, path: string, body?: unknown) {
  const response = await fetch(`${url}/a2a/rest${path}`, {
    method: verb,
    headers: { ...V1, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : {}) as Json };
}

const stateOf = (event: { data: Json }): string | undefined =>
  (event.data.result ?? event.data)?.statusUpdate?.status?.state ?? (event.data.result ?? event.data)?.task?.status?.state;

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * One suite for every binding of the server (node:http, and fetch under Node, Deno and Bun): the
 * same requests must get the same answers, whatever the binding and runtime.
 */
export function describeConformance(name: string, start: () => Promise<Host>): void {
  describe(`binding conformance: ${name}`, () => {
    let host: Host;
    let url: string;
    beforeAll(async () => {
      host = await start();
      url = host.url;
    }, 60_000);
    afterAll(async () => {
      await host?.close();
    });

    it('serves the card with an ETag (304 on revalidation, 405 for other verbs) and the JWKS', async () => {
      const card = await fetch(`${url}/.well-known/agent-card.json`);
      expect(card.status).toBe(200);
      expect(((await card.json()) as Json).name).toBe('conformance');
      const etag = card.headers.get('etag');
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
      expect(card.headers.get('cache-control')).toBe('public, max-age=300');
      const again = await fetch(`${url}/.well-known/agent-card.json`, { headers: { 'if-none-match': etag as string } });
      expect(again.status).toBe(304);
      // Last-Modified next to the ETag; If-Modified-Since revalidates too.
      const lastModified = card.headers.get('last-modified') as string;
      expect(new Date(lastModified).toUTCString()).toBe(lastModified);
      const since = await fetch(`${url}/.well-known/agent-card.json`, { headers: { 'if-modified-since': lastModified } });
      expect(since.status).toBe(304);
      expect((await fetch(`${url}/.well-known/agent-card.json`, { method: 'POST', body: '{}' })).status).toBe(405);
      const legacy = (await (await fetch(`${url}/.well-known/agent.json`)).json()) as Json;
      expect(legacy.protocolVersion).toBe('0.3.0');
      const jwks = await fetch(`${url}/.well-known/jwks.json`);
      expect(jwks.headers.get('content-type')).toBe('application/jwk-set+json');
      expect(((await jwks.json()) as Json).keys[0].kid).toBe('conformance');
    });

    it('JSON-RPC: SendMessage completes, GetTask reads it back, v0.3 names are served', async () => {
      const sent = await rpc(url, 'SendMessage', { message: userMessage('hello') });
      expect(sent.status).toBe(200);
      expect(sent.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(sent.body.result.task.artifacts[0].parts[0].text).toBe('echo: hello');
      const read = await rpc(url, 'GetTask', { id: sent.body.result.task.id });
      expect(read.body.result.id).toBe(sent.body.result.task.id);
      const legacy = await rpc(
        url,
        'message/send',
        { message: { kind: 'message', messageId: 'v03', role: 'user', parts: [{ kind: 'text', text: 'old' }] } },
        { headers: { 'A2A-Version': '0.3' } },
      );
      expect(legacy.body.result.kind).toBe('task');
      expect(legacy.body.result.status.state).toBe('completed');
    });

    it('JSON-RPC protocol errors: 405, media type (-32005 as §5.4 maps it), parse error, unknown method, notification, unknown task', async () => {
      expect((await fetch(`${url}/a2a/jsonrpc`)).status).toBe(405);
      const wrongType = await fetch(`${url}/a2a/jsonrpc`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
      expect(wrongType.status).toBe(200);
      expect(wrongType.headers.get('content-type')).toBe('application/json');
      expect(((await wrongType.json()) as Json).error.code).toBe(-32005);
      const garbled = await fetch(`${url}/a2a/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{nope' });
      expect(((await garbled.json()) as Json).error.code).toBe(-32700);
      expect((await rpc(url, 'NoSuchMethod', {})).body.error.code).toBe(-32601);
      const notification = await fetch(`${url}/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...V1 },
        body: JSON.stringify({ jsonrpc: '2.0', method: 'GetTask', params: { id: 'x' } }),
      });
      expect(notification.status).toBe(204);
      const missing = await rpc(url, 'GetTask', { id: 'no-such-task' });
      expect(missing.body.error.code).toBe(-32001);
      expect(missing.body.id).toBe(nextId);
    });

    it('REST: operations, tenant paths, 404 for an unknown path and 405 for a wrong verb', async () => {
      const sent = await rest(url, 'POST', '/message:send', { message: userMessage('rest') });
      expect(sent.status).toBe(200);
      expect(sent.headers.get('content-type')).toBe('application/a2a+json');
      const taskId = sent.body.task.id as string;
      expect((await rest(url, 'GET', `/tasks/${taskId}`)).body.status.state).toBe('TASK_STATE_COMPLETED');
      const tenant = await rest(url, 'POST', '/acme/message:send', { message: userMessage('tenant') });
      expect(tenant.status).toBe(200);
      expect((await rest(url, 'GET', `/acme/tasks/${tenant.body.task.id}`)).status).toBe(200);
      const elsewhere = await rest(url, 'GET', `/tasks/${tenant.body.task.id}`);
      expect(elsewhere.status).toBe(404);
      expect(elsewhere.body.error.status).toBe('NOT_FOUND');
      expect((await rest(url, 'GET', '/no/such/operation')).status).toBe(404);
      const wrongVerb = await rest(url, 'GET', '/message:send');
      expect(wrongVerb.status).toBe(405);
      expect(wrongVerb.body.error.code).toBe(405);
      const wrongType = await fetch(`${url}/a2a/rest/message:send`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: 'x',
      });
      expect(wrongType.status).toBe(400);
      expect(wrongType.headers.get('content-type')).toBe('application/a2a+json');
      expect(((await wrongType.json()) as Json).error.details[0].reason).toBe('CONTENT_TYPE_NOT_SUPPORTED');
    });

    it('limits: a body over maxBodyBytes is 413, declared or streamed', async () => {
      const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMessage('x'.repeat(8000)) } });
      const declared = await fetch(`${url}/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...V1 },
        body: big,
      });
      expect(declared.status).toBe(413);
      expect(((await declared.json()) as Json).error.code).toBe(-32600);
      const chunk = new TextEncoder().encode('x'.repeat(1024));
      let sent = 0;
      const uploadEnds = new AbortController();
      // 5 KiB with no Content-Length, and the upload never ends: only a count while reading finds
      // it too large, and the answer comes while the body is still open.
      const streamed = await fetch(`${url}/a2a/rest/message:send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...V1 },
        signal: uploadEnds.signal,
        body: new ReadableStream<Uint8Array>({
          async pull(controller) {
            if (sent++ < 5) controller.enqueue(chunk);
            else await new Promise((resolve) => uploadEnds.signal.addEventListener('abort', resolve, { once: true }));
          },
        }),
        duplex: 'half',
      } as RequestInit);
      expect(streamed.status).toBe(413);
      expect(((await streamed.json()) as Json).error.code).toBe(413);
      uploadEnds.abort();
    });

    it('streams over SSE (JSON-RPC and REST): ids on every event, heartbeats, ending completed', async () => {
      const response = await fetch(`${url}/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...V1 },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'stream-1', method: 'SendStreamingMessage', params: { message: userMessage('slow') } }),
      });
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      const { events, comments } = await readSse(response);
      expect(events.every((event) => event.id !== undefined && event.data.id === 'stream-1')).toBe(true);
      expect(events.filter((event) => (event.data.result as Json).artifactUpdate !== undefined)).toHaveLength(5);
      expect(stateOf(events.at(-1) as { data: Json })).toBe('TASK_STATE_COMPLETED');
      expect(comments).toContain('heartbeat');
      const restStream = await fetch(`${url}/a2a/rest/message:stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...V1 },
        body: JSON.stringify({ message: userMessage('rest stream') }),
      });
      const restEvents = (await readSse(restStream)).events;
      expect(restEvents[0]?.data.task).toBeDefined();
      expect(stateOf(restEvents.at(-1) as { data: Json })).toBe('TASK_STATE_COMPLETED');
    });

    it('resumes a stream after Last-Event-ID with the events that followed it, and no other', async () => {
      const first = await fetch(`${url}/a2a/rest/message:stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...V1 },
        body: JSON.stringify({ message: userMessage('slow') }),
      });
      const all = (await readSse(first)).events;
      const taskId = (all[0] as { data: Json }).data.task.id as string;
      const cut = all[2] as { id: string };
      const resumed = await fetch(`${url}/a2a/rest/tasks/${taskId}:subscribe`, { headers: { ...V1, 'last-event-id': cut.id } });
      expect(resumed.status).toBe(200);
      const rest = (await readSse(resumed)).events;
      expect(rest.map((event) => event.id)).toEqual(all.slice(3).map((event) => event.id));
      expect(stateOf(rest.at(-1) as { data: Json })).toBe('TASK_STATE_COMPLETED');
    });

    it('cancels a running task', async () => {
      const started = await rpc(url, 'SendMessage', { message: userMessage('wait'), configuration: { returnImmediately: true } });
      const taskId = started.body.result.task.id as string;
      expect(started.body.result.task.status.state).not.toBe('TASK_STATE_CANCELED');
      const canceled = await rpc(url, 'CancelTask', { id: taskId });
      expect(canceled.body.result.status.state).toBe('TASK_STATE_CANCELED');
      expect((await rest(url, 'GET', `/tasks/${taskId}`)).body.status.state).toBe('TASK_STATE_CANCELED');
      expect((await rpc(url, 'CancelTask', { id: taskId })).body.error.code).toBe(-32002);
    });

    it('a caller that goes away mid-stream is let go (its subscription is released)', async () => {
      const controller = new AbortController();
      const response = await fetch(`${url}/a2a/rest/message:stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...V1 },
        body: JSON.stringify({ message: userMessage('wait') }),
        signal: controller.signal,
      });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const firstChunk = new TextDecoder().decode((await reader.read()).value);
      const taskId = /"id":"([^"]+)"/.exec(firstChunk)?.[1] as string;
      expect((await host.stats()).subscribers).toBeGreaterThan(0);
      controller.abort();
      await until(async () => (await host.stats()).subscribers === 0);
      expect((await host.stats()).subscribers).toBe(0);
      await rpc(url, 'CancelTask', { id: taskId });
    });

    it('CORS: preflight from an allowed origin (cached), refused from another, headers on replies', async () => {
      const preflight = await fetch(`${url}/a2a/jsonrpc`, {
        method: 'OPTIONS',
        headers: { origin: ALLOWED_ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe(ALLOWED_ORIGIN);
      expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, POST, DELETE');
      expect(preflight.headers.get('access-control-allow-headers')).toContain('content-type');
      expect(preflight.headers.get('access-control-max-age')).toBe('120');
      expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
      const refused = await fetch(`${url}/a2a/rest/message:send`, {
        method: 'OPTIONS',
        headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' },
      });
      expect(refused.status).toBe(403);
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
      const call = await rpc(url, 'SendMessage', { message: userMessage('cors') }, { headers: { origin: ALLOWED_ORIGIN } });
      expect(call.headers.get('access-control-allow-origin')).toBe(ALLOWED_ORIGIN);
      expect(call.headers.get('vary')).toContain('origin');
      const other = await rpc(url, 'SendMessage', { message: userMessage('cors') }, { headers: { origin: 'http://evil.example' } });
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('leaves paths it does not own to the host', async () => {
      const response = await fetch(`${url}/somewhere/else`);
      expect(response.status).toBe(404);
    });
  });
}
