import { afterEach, describe, expect, it } from 'vitest';
import { type AgentExecutor, createTaskUpdater } from '../src/index.js';
import { createGate, echoExecutor, publicDnsWebhookGuard, rpc, startServer, type TestServer, testCard, userMessage } from './helpers.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Json = Record<string, unknown>;
const errorOf = (body: Json) => body.error as { code: number; message: string; data: Json[] };
const reasonOf = (body: Json) => (errorOf(body).data[0] as { reason: string }).reason;

describe('JSON-RPC binding (spec §9, §5.3)', () => {
  it('SendMessage blocks until the task is terminal (§3.1.1)', async () => {
    server = await startServer({ executor: echoExecutor });
    const { status, body } = await rpc(server.url, 'SendMessage', { message: userMessage('hi') });
    expect(status).toBe(200);
    const task = (body.result as Json).task as Json;
    expect((task.status as Json).state).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts).toEqual([{ artifactId: 'out', parts: [{ text: 'echo: hi' }] }]);
    expect((task.history as Json[])[0]?.messageId).toBeDefined();
  });

  it('SendMessage historyLength 0 omits history (§3.2.4)', async () => {
    server = await startServer({ executor: echoExecutor });
    const { body } = await rpc(server.url, 'SendMessage', { message: userMessage('hi'), configuration: { historyLength: 0 } });
    expect(((body.result as Json).task as Json).history).toBeUndefined();
  });

  it('SendMessage returns a Message when the agent answers with one', async () => {
    server = await startServer({
      executor: {
        async execute(context, events) {
          events.publish({ messageId: 'r1', role: 'ROLE_AGENT', parts: [{ text: 'pong' }], contextId: context.contextId });
        },
      },
    });
    const { body } = await rpc(server.url, 'SendMessage', { message: userMessage('ping') });
    expect(((body.result as Json).message as Json).parts).toEqual([{ text: 'pong' }]);
  });

  it('returnImmediately returns before the task finishes (§3.2.2)', async () => {
    const gate = createGate();
    server = await startServer({
      executor: {
        async execute(context, events) {
          const t = createTaskUpdater(context, events);
          t.submit();
          await gate.wait;
          t.complete();
        },
      },
    });
    const { body } = await rpc(server.url, 'SendMessage', { message: userMessage('x'), configuration: { returnImmediately: true } });
    const task = (body.result as Json).task as Json;
    expect((task.status as Json).state).toBe('TASK_STATE_SUBMITTED');
    gate.open();
  });

  it('multi-turn: input-required, continue by taskId, then a terminal task refuses messages', async () => {
    server = await startServer({
      executor: {
        async execute(context, events) {
          const t = createTaskUpdater(context, events);
          if (!context.task) {
            t.submit();
            t.requireInput('name?');
          } else t.complete(`hello`);
        },
      },
    });
    const first = await rpc(server.url, 'SendMessage', { message: userMessage('start') });
    const task = (first.body.result as Json).task as Json;
    expect((task.status as Json).state).toBe('TASK_STATE_INPUT_REQUIRED');
    const second = await rpc(server.url, 'SendMessage', { message: userMessage('bob', { taskId: task.id as string }) });
    const done = (second.body.result as Json).task as Json;
    expect((done.status as Json).state).toBe('TASK_STATE_COMPLETED');
    expect((done.history as Json[]).length).toBe(2);
    const third = await rpc(server.url, 'SendMessage', { message: userMessage('again', { taskId: task.id as string }) });
    expect(errorOf(third.body).code).toBe(-32004);
  });

  it('GetTask, ListTasks, CancelTask', async () => {
    const gate = createGate();
    server = await startServer({
      executor: {
        async execute(context, events) {
          const t = createTaskUpdater(context, events);
          t.submit();
          t.startWork();
          await Promise.race([gate.wait, new Promise((r) => context.signal.addEventListener('abort', r))]);
        },
      },
    });
    const sent = await rpc(server.url, 'SendMessage', {
      message: userMessage('x', { contextId: 'ctx-1' }),
      configuration: { returnImmediately: true },
    });
    const id = ((sent.body.result as Json).task as Json).id as string;
    const got = await rpc(server.url, 'GetTask', { id });
    expect((got.body.result as Json).id).toBe(id);
    const list = await rpc(server.url, 'ListTasks', { contextId: 'ctx-1' });
    const listed = list.body.result as Json;
    expect(listed.totalSize).toBe(1);
    expect(listed.nextPageToken).toBe('');
    expect(listed.pageSize).toBe(50);
    const canceled = await rpc(server.url, 'CancelTask', { id });
    expect(((canceled.body.result as Json).status as Json).state).toBe('TASK_STATE_CANCELED');
    // Spec §3.1.5: a canceled task is terminal, so canceling it again is TaskNotCancelableError.
    const again = await rpc(server.url, 'CancelTask', { id });
    expect(errorOf(again.body).code).toBe(-32002);
    expect(reasonOf(again.body)).toBe('TASK_NOT_CANCELABLE');
    gate.open();
  });

  it('CancelTask on a completed task is TaskNotCancelableError (-32002)', async () => {
    server = await startServer({ executor: echoExecutor });
    const sent = await rpc(server.url, 'SendMessage', { message: userMessage('x') });
    const id = ((sent.body.result as Json).task as Json).id as string;
    const { body } = await rpc(server.url, 'CancelTask', { id });
    expect(errorOf(body).code).toBe(-32002);
  });

  it('GetTask of an unknown task is TaskNotFoundError (-32001)', async () => {
    server = await startServer({ executor: echoExecutor });
    const { body } = await rpc(server.url, 'GetTask', { id: 'nope' });
    expect(errorOf(body).code).toBe(-32001);
    expect(reasonOf(body)).toBe('TASK_NOT_FOUND');
  });

  it('ListTasks paginates with opaque tokens, newest first, artifacts omitted by default', async () => {
    server = await startServer({ executor: echoExecutor });
    for (let i = 0; i < 5; i++) await rpc(server.url, 'SendMessage', { message: userMessage(`m${i}`) });
    const seen: string[] = [];
    let token = '';
    for (let page = 0; page < 5; page++) {
      const { body } = await rpc(server.url, 'ListTasks', { pageSize: 2, ...(token ? { pageToken: token } : {}) });
      const result = body.result as Json;
      expect(result.totalSize).toBe(5);
      for (const t of result.tasks as Json[]) {
        expect(t.artifacts).toBeUndefined();
        seen.push(t.id as string);
      }
      token = result.nextPageToken as string;
      if (!token) break;
    }
    expect(new Set(seen).size).toBe(5);
    const withArtifacts = await rpc(server.url, 'ListTasks', { includeArtifacts: true, pageSize: 1 });
    expect(((withArtifacts.body.result as Json).tasks as Json[])[0]?.artifacts).toBeDefined();
    const bad = await rpc(server.url, 'ListTasks', { pageToken: 'garbage' });
    expect(errorOf(bad.body).code).toBe(-32602);
    const badSize = await rpc(server.url, 'ListTasks', { pageSize: 101 });
    expect(errorOf(badSize.body).code).toBe(-32602);
  });

  it('push config CRUD (§3.1.7-§3.1.10)', async () => {
    server = await startServer({ executor: echoExecutor, checkWebhookUrl: publicDnsWebhookGuard });
    const sent = await rpc(server.url, 'SendMessage', { message: userMessage('x') });
    const taskId = ((sent.body.result as Json).task as Json).id as string;
    const created = await rpc(server.url, 'CreateTaskPushNotificationConfig', {
      taskId,
      url: 'https://hook.example.com/a',
      token: 't',
      authentication: { scheme: 'Bearer', credentials: 'secret-cred' },
    });
    const config = created.body.result as Json;
    expect(config.id).toBeTypeOf('string');
    // Read back through Get and List, the config keeps its URL and scheme but not its secrets (A2A#1988).
    const got = await rpc(server.url, 'GetTaskPushNotificationConfig', { taskId, id: config.id });
    expect(got.body.result).toEqual({ taskId, id: config.id, url: 'https://hook.example.com/a', authentication: { scheme: 'Bearer' } });
    const listed = await rpc(server.url, 'ListTaskPushNotificationConfigs', { taskId });
    expect((listed.body.result as Json).configs).toEqual([got.body.result]);
    expect(JSON.stringify([got.body, listed.body])).not.toMatch(/secret-cred|"token"/);
    const deleted = await rpc(server.url, 'DeleteTaskPushNotificationConfig', { taskId, id: config.id });
    expect(deleted.body.result).toEqual({});
  });

  it('push operations fail with PushNotificationNotSupportedError (-32003) when the card says no', async () => {
    server = await startServer({ executor: echoExecutor, card: testCard({ capabilities: { streaming: true, pushNotifications: false } }) });
    const { body } = await rpc(server.url, 'ListTaskPushNotificationConfigs', { taskId: 'x' });
    expect(errorOf(body).code).toBe(-32003);
    const inline = await rpc(server.url, 'SendMessage', {
      message: userMessage('x'),
      configuration: { taskPushNotificationConfig: { url: 'https://h.example' } },
    });
    expect(errorOf(inline.body).code).toBe(-32003);
  });

  it('GetExtendedAgentCard: capability, authentication, configuration (§3.1.11)', async () => {
    server = await startServer({ executor: echoExecutor });
    const anonymous = await rpc(server.url, 'GetExtendedAgentCard', {});
    expect(reasonOf(anonymous.body)).toBe('UNAUTHENTICATED');
    await server.close();
    server = await startServer({
      executor: echoExecutor,
      authenticate: async (req) => (req.headers.authorization === 'Bearer ok' ? { id: 'alice', scheme: 'bearer' } : undefined),
    });
    const notConfigured = await rpc(server.url, 'GetExtendedAgentCard', {}, { authorization: 'Bearer ok' });
    expect(errorOf(notConfigured.body).code).toBe(-32007);
    await server.close();
    const extended = testCard({ name: 'extended' });
    server = await startServer({
      executor: echoExecutor,
      extendedCard: extended,
      authenticate: async () => ({ id: 'alice', scheme: 'bearer' }),
    });
    const ok = await rpc(server.url, 'GetExtendedAgentCard', {});
    expect((ok.body.result as Json).name).toBe('extended');
    await server.close();
    server = await startServer({ executor: echoExecutor, card: testCard({ capabilities: { extendedAgentCard: false } }) });
    const unsupported = await rpc(server.url, 'GetExtendedAgentCard', {});
    expect(errorOf(unsupported.body).code).toBe(-32004);
  });

  it('streaming operations are UnsupportedOperationError when the card has streaming false (§3.3.4)', async () => {
    server = await startServer({ executor: echoExecutor, card: testCard({ capabilities: { streaming: false } }) });
    const { body } = await rpc(server.url, 'SendStreamingMessage', { message: userMessage('x') });
    expect(errorOf(body).code).toBe(-32004);
  });

  it('JSON-RPC envelope errors: parse, invalid request, method not found, invalid params (§9.5)', async () => {
    server = await startServer({ executor: echoExecutor });
    const post = (body: string) =>
      fetch(`${server!.url}/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
        body,
      }).then(async (r) => (await r.json()) as Json);
    expect(errorOf(await post('{oops')).code).toBe(-32700);
    expect(errorOf(await post('[]')).code).toBe(-32600);
    expect(errorOf(await post('{"jsonrpc":"2.0","id":1,"method":"Nope"}')).code).toBe(-32601);
    const invalid = await post('{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{}}}');
    expect(errorOf(invalid).code).toBe(-32602);
    expect(invalid.id).toBe(1);
  });

  it('A2A-Version: 1.0 and 1 served, missing served, unknown is VersionNotSupportedError (§3.6)', async () => {
    server = await startServer({ executor: echoExecutor });
    expect((await rpc(server.url, 'ListTasks', {}, { 'A2A-Version': '1' })).body.result).toBeDefined();
    const missing = await fetch(`${server.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }),
    });
    expect(((await missing.json()) as Json).result).toBeDefined();
    const unknown = await rpc(server.url, 'ListTasks', {}, { 'A2A-Version': '9.9' });
    expect(errorOf(unknown.body).code).toBe(-32009);
    const viaQuery = await fetch(`${server.url}/a2a/jsonrpc?A2A-Version=7.0`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }),
    });
    expect(errorOf((await viaQuery.json()) as Json).code).toBe(-32009);
  });

  it('required card extensions must be listed in A2A-Extensions', async () => {
    const card = testCard();
    card.capabilities.extensions = [{ uri: 'urn:x:required', required: true }];
    server = await startServer({ executor: echoExecutor, card });
    const { body } = await rpc(server.url, 'ListTasks', {});
    expect(errorOf(body).code).toBe(-32008);
    const ok = await rpc(server.url, 'ListTasks', {}, { 'A2A-Extensions': 'urn:other, urn:x:required' });
    expect(ok.body.result).toBeDefined();
  });

  it('another media type is ContentTypeNotSupportedError as §5.4 maps it (-32005, HTTP 200); bodies over the limit get 413', async () => {
    server = await startServer({ executor: echoExecutor }, { maxBodyBytes: 1024 });
    const wrongType = await fetch(`${server.url}/a2a/jsonrpc`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
    expect(wrongType.status).toBe(200);
    expect(wrongType.headers.get('content-type')).toBe('application/json');
    expect(errorOf((await wrongType.json()) as Json).code).toBe(-32005);
    // application/a2a+json requests are read too; JSON-RPC responses stay application/json (§9.1).
    const a2aJson = await fetch(`${server.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/a2a+json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} }),
    });
    expect(a2aJson.status).toBe(200);
    expect(a2aJson.headers.get('content-type')).toBe('application/json');
    expect(((await a2aJson.json()) as Json).result).toBeDefined();
    const big = await fetch(`${server.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMessage('x'.repeat(4000)) } }),
    });
    expect(big.status).toBe(413);
    expect(errorOf((await big.json()) as Json).code).toBe(-32600);
  });

  it('tasks are isolated per principal (§7.5): another caller gets TaskNotFoundError', async () => {
    server = await startServer({
      executor: echoExecutor,
      authenticate: async (req) => {
        const user = req.headers['x-user'];
        return user ? { id: user, scheme: 'test' } : undefined;
      },
    });
    const sent = await rpc(server.url, 'SendMessage', { message: userMessage('x') }, { 'x-user': 'alice' });
    const id = ((sent.body.result as Json).task as Json).id as string;
    expect((await rpc(server.url, 'GetTask', { id }, { 'x-user': 'alice' })).body.result).toBeDefined();
    expect(errorOf((await rpc(server.url, 'GetTask', { id }, { 'x-user': 'mallory' })).body).code).toBe(-32001);
    expect(errorOf((await rpc(server.url, 'GetTask', { id })).body).code).toBe(-32001);
    expect(errorOf((await rpc(server.url, 'CancelTask', { id }, { 'x-user': 'mallory' })).body).code).toBe(-32001);
    const list = await rpc(server.url, 'ListTasks', {}, { 'x-user': 'mallory' });
    expect((list.body.result as Json).totalSize).toBe(0);
  });

  it('rate limiting and authentication failures map to control-plane errors', async () => {
    server = await startServer({
      executor: echoExecutor,
      rateLimiter: { take: () => ({ ok: false, retryAfterSeconds: 7 }) },
    });
    const limited = await rpc(server.url, 'ListTasks', {});
    expect(errorOf(limited.body).code).toBe(-32000);
    expect(reasonOf(limited.body)).toBe('RATE_LIMITED');
    expect(limited.headers.get('retry-after')).toBe('7');
  });

  it('failed logins spend the client rate limit, so credentials cannot be guessed at full speed', async () => {
    const taken: string[] = [];
    server = await startServer({
      executor: echoExecutor,
      authenticate: async (request) => {
        if (request.headers['x-user'] === 'alice') return { id: 'alice', scheme: 'test' };
        throw new Error('bad credentials');
      },
      rateLimiter: {
        take: (key) => {
          taken.push(key);
          return taken.filter((k) => k === key).length <= 2 ? { ok: true } : { ok: false, retryAfterSeconds: 3 };
        },
      },
    });
    const guesses = [];
    for (let i = 0; i < 3; i++) guesses.push(await rpc(server.url, 'ListTasks', {}, { 'x-user': `guess-${i}` }));
    expect(guesses.slice(0, 2).map((g) => reasonOf(g.body))).toEqual(['UNAUTHENTICATED', 'UNAUTHENTICATED']);
    expect(reasonOf(guesses[2]!.body)).toBe('RATE_LIMITED');
    expect(taken.every((key) => key.startsWith('client:'))).toBe(true);
    // A valid login is limited by its principal, not by the failures of its address.
    const alice = await rpc(server.url, 'ListTasks', {}, { 'x-user': 'alice' });
    expect(alice.body.result).toBeDefined();
  });

  it('agent protocol violations fail the task with InvalidAgentResponse, never crash', async () => {
    const bad: AgentExecutor = {
      async execute(context, events) {
        createTaskUpdater(context, events).submit();
        events.publish({ messageId: 'late', role: 'ROLE_AGENT', parts: [{ text: 'x' }] });
      },
    };
    server = await startServer({ executor: bad });
    const { body } = await rpc(server.url, 'SendMessage', { message: userMessage('x') });
    expect((((body.result as Json).task as Json).status as Json).state).toBe('TASK_STATE_FAILED');
    const throwing: AgentExecutor = {
      async execute() {
        throw new Error('secret internal detail');
      },
    };
    await server.close();
    server = await startServer({ executor: throwing });
    const thrown = await rpc(server.url, 'SendMessage', { message: userMessage('x') });
    expect(JSON.stringify(thrown.body)).not.toContain('secret');
    expect(errorOf(thrown.body).code).toBe(-32603);
  });
});
