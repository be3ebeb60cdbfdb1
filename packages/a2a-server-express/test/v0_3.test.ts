import { afterEach, describe, expect, it } from 'vitest';
import { echoExecutor, startServer, type TestServer } from './helpers.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Json = Record<string, unknown>;

async function v03(url: string, method: string, params: unknown, headers: Record<string, string> = {}): Promise<Json> {
  const response = await fetch(`${url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
  });
  return (await response.json()) as Json;
}

const v03Message = { kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'hi' }] };

describe('v0.3 compatibility on the same mount (spec §3.6.2)', () => {
  it('message/send without A2A-Version answers in v0.3 shapes', async () => {
    server = await startServer({ executor: echoExecutor });
    const body = await v03(server.url, 'message/send', { message: v03Message });
    const result = body.result as Json;
    expect(result.kind).toBe('task');
    expect((result.status as Json).state).toBe('completed');
    const got = await v03(server.url, 'tasks/get', { id: result.id }, { 'A2A-Version': '0.3' });
    expect((got.result as Json).id).toBe(result.id);
  });

  it('message/stream frames are v0.3 stream events', async () => {
    server = await startServer({ executor: echoExecutor });
    const response = await fetch(`${server.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'message/stream', params: { message: v03Message } }),
    });
    const text = await response.text();
    const kinds = text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => ((JSON.parse(line.slice(6)) as Json).result as Json).kind);
    expect(kinds[0]).toBe('task');
    expect(kinds).toContain('artifact-update');
    expect(kinds.at(-1)).toBe('status-update');
  });

  it('invalid v0.3 params are InvalidParamsError; v0.3 methods under A2A-Version 1.0 are MethodNotFound', async () => {
    server = await startServer({ executor: echoExecutor });
    expect(((await v03(server.url, 'message/send', { message: { kind: 'message' } })).error as Json).code).toBe(-32602);
    expect(((await v03(server.url, 'message/send', { message: v03Message }, { 'A2A-Version': '1.0' })).error as Json).code).toBe(-32601);
  });
});

describe('v0.3 card discovery', () => {
  it('serves the card in v0.3 shape at /.well-known/agent.json', async () => {
    server = await startServer({ executor: echoExecutor });
    const response = await fetch(`${server.url}/.well-known/agent.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toBeTruthy();
    const card = (await response.json()) as Json;
    expect(card.protocolVersion).toBe('0.3.0');
    expect(card.url).toBe('http://127.0.0.1/a2a/jsonrpc');
  });
});
