import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { fastParseSendMessageRequest } from '../src/core/event-validation.js';
import { a2aExpress } from '../src/express/index.js';
import { createA2AServer, createNodeHttpHandler } from '../src/index.js';
import { echoExecutor, rest, rpc, startServer, type TestServer, testCard, V1 } from './helpers.js';

type Json = Record<string, unknown>;
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

// A conformance runner that speaks proto field names (ProtoJSON parsers accept both spellings).
const protoMessage = (text: string, extra: Json = {}): Json => ({
  message_id: `m-${text}`,
  context_id: 'ctx-proto',
  role: 'ROLE_USER',
  parts: [{ text, media_type: 'text/plain' }],
  reference_task_ids: ['t-0'],
  ...extra,
});

describe('ProtoJSON input on the wire (proto field names)', () => {
  it('JSON-RPC SendMessage with proto names answers camelCase, with every field read', async () => {
    server = await startServer({ executor: echoExecutor });
    const { body } = await rpc(server.url, 'SendMessage', {
      message: protoMessage('hi'),
      configuration: { history_length: 1, accepted_output_modes: ['text/plain'], return_immediately: false },
    });
    const task = (body.result as Json).task as Json;
    expect(task.contextId).toBe('ctx-proto');
    expect((task.status as Json).state).toBe('TASK_STATE_COMPLETED');
    const history = task.history as Json[];
    expect(history).toHaveLength(1); // history_length was read
    expect(JSON.stringify(body)).not.toMatch(/"[a-z]+_[a-z_]+":/);
  });

  it('REST message:send, GetTask ?history_length= and ListTasks ?context_id= with proto names', async () => {
    server = await startServer({ executor: echoExecutor });
    const sent = await rest(server.url, 'POST', '/message:send', { message: protoMessage('rest') });
    expect(sent.status).toBe(200);
    const task = sent.body.task as Json;
    expect(task.contextId).toBe('ctx-proto');
    const id = task.id as string;
    const got = await rest(server.url, 'GET', `/tasks/${id}?history_length=0`);
    expect(got.status).toBe(200);
    expect(got.body.history ?? []).toEqual([]);
    const listed = await rest(server.url, 'GET', '/tasks?context_id=ctx-proto&page_size=5');
    expect(listed.body.totalSize).toBe(1);
    expect(listed.body.pageSize).toBe(5);
  });

  it('refuses a field sent under both names with -32602 and the field path', async () => {
    server = await startServer({ executor: echoExecutor });
    const { body } = await rpc(server.url, 'SendMessage', { message: { ...protoMessage('x'), messageId: 'other' } });
    const error = body.error as { code: number; data: Json[] };
    expect(error.code).toBe(-32602);
    expect(JSON.stringify(error.data)).toContain('"field":"message.message_id"');
  });

  it('the SendMessage fast path declines proto names (zod renames them) and vouches for camelCase', () => {
    const camel = { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] } };
    expect(fastParseSendMessageRequest(camel)).toEqual(camel);
    expect(fastParseSendMessageRequest({ message: { ...camel.message, context_id: 'c' } })).toBeUndefined();
    expect(
      fastParseSendMessageRequest({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x', media_type: 't' }] } }),
    ).toBeUndefined();
    expect(fastParseSendMessageRequest({ ...camel, configuration: { history_length: 1 } })).toBeUndefined();
    expect(
      fastParseSendMessageRequest({ ...camel, configuration: { taskPushNotificationConfig: { url: 'https://h', task_id: 't' } } }),
    ).toBeUndefined();
  });
});

type Listener = (req: IncomingMessage, res: ServerResponse) => void;
async function withListener(listener: Listener, run: (url: string) => Promise<void>): Promise<void> {
  const http = createServer(listener);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  try {
    await run(`http://127.0.0.1:${(http.address() as { port: number }).port}`);
  } finally {
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
  }
}

describe("REST at the root (restPath: '/')", () => {
  const send = (url: string) =>
    fetch(`${url}/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...V1 },
      body: JSON.stringify({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] } }),
    });

  it('express: A2A routes are served, every other path goes to next()', async () => {
    const middleware = a2aExpress(createA2AServer({ card: testCard(), executor: echoExecutor }), { restPath: '/' });
    const listener: Listener = (req, res) =>
      middleware(req, res, () => {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"next":true}');
      });
    await withListener(listener, async (url) => {
      expect((await send(url)).status).toBe(200);
      expect(await (await fetch(`${url}/health`)).json()).toEqual({ next: true });
      expect(await (await fetch(`${url}/`)).json()).toEqual({ next: true });
      expect((await fetch(`${url}/tasks`, { headers: V1 })).status).toBe(200);
      // A known route with another verb is still A2A's answer.
      expect((await fetch(`${url}/tasks`, { method: 'DELETE', headers: V1 })).status).toBe(405);
    });
  });

  it('node:http: an unknown path is the handler 404, not an A2A error', async () => {
    await withListener(
      createNodeHttpHandler(createA2AServer({ card: testCard(), executor: echoExecutor }), { restPath: '/' }),
      async (url) => {
        expect((await send(url)).status).toBe(200);
        const other = await fetch(`${url}/static/app.js`);
        expect(other.status).toBe(404);
        // The handler's own 404 (no ErrorInfo), not A2A's METHOD_NOT_FOUND for a path it claimed.
        expect(((await other.json()) as { error: { details: unknown[] } }).error.details).toEqual([]);
      },
    );
  });
});
