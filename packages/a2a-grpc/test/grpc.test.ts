import { A2AError, ERROR_INFO_TYPE, PolicyViolationError } from '@a2aplane/a2a-types';
import { A2AAbortError, A2ATimeoutError, bearerAuth, SseEventTooLargeError } from '@a2aplane/a2a-client';
import {
  createA2AServer,
  createAuthenticator,
  createStaticApiKeyVerifier,
  createTokenBucketRateLimiter,
} from '@a2aplane/a2a-server-express';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import {
  Client,
  credentials,
  Metadata,
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type ServiceError,
  type sendUnaryData,
  status,
} from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';
import { GetTaskRequestSchema, SendMessageRequestSchema } from '../src/gen/a2a_pb.js';
import { createGrpcTransportFactory, GrpcTransport } from '../src/client/index.js';
import { a2aServiceDefinition, bindA2AGrpc, listenA2AGrpc, readStatusDetails, withGrpcInterface } from '../src/index.js';
import {
  baseCard,
  collect,
  createGate,
  echoExecutor,
  eventually,
  gatedExecutor,
  grpcClient,
  startAgent,
  type TestAgent,
  userMessage,
} from './helpers.js';

let agent: TestAgent | undefined;
afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

/** Calls a unary method with raw bytes and returns the status error. */
function rawCall(target: string, path: string, body: Buffer, metadata = new Metadata()): Promise<ServiceError> {
  const client = new Client(target, credentials.createInsecure());
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      path,
      (b: Buffer) => b,
      (b: Buffer) => b,
      body,
      metadata,
      (error) => {
        client.close();
        if (error) resolve(error);
        else reject(new Error('expected an error status'));
      },
    );
  });
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('gRPC server over the shared core, our gRPC client', () => {
  it('SendMessage runs the executor and returns the completed task', async () => {
    agent = await startAgent({ executor: echoExecutor });
    const result = await agent.client().sendMessage({ message: userMessage('hi') });
    expect(result.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(result.task?.artifacts?.[0]?.parts[0]).toEqual({ text: 'echo: hi' });
    expect(result.task?.history?.[0]?.parts[0]).toEqual({ text: 'hi' });
  });

  it('SendStreamingMessage streams every event, ending with the final status', async () => {
    agent = await startAgent({ executor: echoExecutor });
    const events = await collect(agent.client().sendStreamingMessage({ message: userMessage('stream me') }));
    const kinds = events.map((e) => Object.keys(e)[0]);
    expect(kinds[0]).toBe('task');
    expect(kinds).toContain('artifactUpdate');
    expect(events.at(-1)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('GetTask, ListTasks (with historyLength and includeArtifacts) and CancelTask', async () => {
    const gate = createGate();
    agent = await startAgent({ executor: gatedExecutor(gate) });
    const client = agent.client();
    const sent = await client.sendMessage({ message: userMessage('wait'), configuration: { returnImmediately: true } });
    const taskId = sent.task?.id as string;
    const got = await client.getTask({ id: taskId, historyLength: 0 });
    expect(got.id).toBe(taskId);
    expect(got.history).toBeUndefined();
    const listed = await client.listTasks({ pageSize: 10 });
    expect(listed.tasks.map((t) => t.id)).toEqual([taskId]);
    expect(listed.totalSize).toBe(1);
    const canceled = await client.cancelTask({ id: taskId });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    gate.open();
  });

  it('SubscribeToTask sends the task first, then the live events to the end', async () => {
    const gate = createGate();
    agent = await startAgent({ executor: gatedExecutor(gate) });
    const client = agent.client();
    const sent = await client.sendMessage({ message: userMessage('wait'), configuration: { returnImmediately: true } });
    const stream = client.subscribeToTask({ id: sent.task?.id as string });
    const events: unknown[] = [];
    const done = (async () => {
      for await (const event of stream) {
        events.push(event);
        if (events.length === 1) gate.open();
      }
    })();
    await done;
    expect((events[0] as { task: { id: string } }).task.id).toBe(sent.task?.id);
    expect((events.at(-1) as { statusUpdate: { status: { state: string } } }).statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('every stream item carries its event id; SubscribeToTask with last-event-id metadata resumes after it', async () => {
    agent = await startAgent({ executor: echoExecutor });
    const client = agent.client();
    const items = await collect(await client.transport.open('SendStreamingMessage', { message: userMessage('ids') }));
    // The ids of the task's event log, as SSE numbers its events.
    expect(items.map((item) => item.id)).toEqual(['1', '2', '3', '4']);
    const taskId = (items[0] as { data: { task: { id: string } } }).data.task.id;
    const resumed = await collect(await client.transport.open('SubscribeToTask', { id: taskId }, { lastEventId: '2' }));
    expect(resumed.map((item) => item.id)).toEqual(['3', '4']);
    expect(resumed.map((item) => item.data)).toEqual(items.slice(2).map((item) => item.data));
    const error = await rejection(collect(client.subscribeToTask({ id: taskId }, { lastEventId: 'not-an-id' })));
    expect(A2AError.isInstance(error) && error.reason).toBe('INVALID_PARAMS');
  });

  it('push notification config create, get, list and delete', async () => {
    agent = await startAgent({ executor: echoExecutor });
    const client = agent.client();
    const sent = await client.sendMessage({ message: userMessage('hi') });
    const taskId = sent.task?.id as string;
    const created = await client.createTaskPushNotificationConfig({ taskId, url: 'https://hooks.example.com/a2a', token: 't' });
    expect(created).toMatchObject({ taskId, url: 'https://hooks.example.com/a2a', token: 't' });
    expect(created.id).toBeTruthy();
    // Read back, the stored credential stays on the server (A2A#1988): the config comes back without its token.
    const { token: _secret, ...redacted } = created;
    expect(await client.getTaskPushNotificationConfig({ taskId, id: created.id as string })).toEqual(redacted);
    expect((await client.listTaskPushNotificationConfigs({ taskId })).configs).toEqual([redacted]);
    expect(await client.deleteTaskPushNotificationConfig({ taskId, id: created.id as string })).toEqual({});
    expect((await client.listTaskPushNotificationConfigs({ taskId })).configs ?? []).toEqual([]);
  });

  it('GetExtendedAgentCard authenticates with the call metadata (the API key header becomes metadata)', async () => {
    const card = baseCard({
      securitySchemes: { key: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } } },
      securityRequirements: [{ schemes: { key: { list: [] } } }],
    });
    agent = await startAgent({
      card,
      executor: echoExecutor,
      authenticate: createAuthenticator({
        securitySchemes: card.securitySchemes ?? {},
        apiKey: createStaticApiKeyVerifier({ 'secret-key': { id: 'alice', scheme: 'key' } }),
      }),
      extendedCard: (principal) => ({ ...card, name: `extended for ${principal.id}` }),
    });
    const client = agent.client();
    const refused = await rejection(client.getExtendedAgentCard({}));
    expect(A2AError.isInstance(refused) && refused.reason).toBe('UNAUTHENTICATED');
    const extended = await client.getExtendedAgentCard({}, { headers: { 'x-api-key': 'secret-key' } });
    expect(extended.name).toBe('extended for alice');
  });
});

describe('client auth provider', () => {
  it('bearerAuth headers go out as metadata; after UNAUTHENTICATED the refreshed token is sent once more', async () => {
    const card = baseCard({ securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer' } } } });
    agent = await startAgent({
      card,
      executor: echoExecutor,
      authenticate: createAuthenticator({
        securitySchemes: card.securitySchemes ?? {},
        bearer: { verify: (token) => (token === 'fresh' ? { id: 'bob', scheme: 'bearer' } : undefined) },
      }),
    });
    let token = 'stale';
    let refreshes = 0;
    const client = grpcClient({
      target: agent.grpc.target,
      credentials: credentials.createInsecure(),
      auth: bearerAuth({
        getToken: () => token,
        refresh: () => {
          refreshes++;
          token = 'fresh';
        },
      }),
    });
    try {
      await expect(client.listTasks({})).resolves.toMatchObject({ tasks: [] });
      expect(refreshes).toBe(1);
      const events = await collect(client.sendStreamingMessage({ message: userMessage('authed') }));
      expect(events.at(-1)?.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
    } finally {
      client.close();
    }
  });
});

describe('gRPC errors', () => {
  it('an A2A error is its status code with google.rpc.ErrorInfo in grpc-status-details-bin', async () => {
    agent = await startAgent({ executor: echoExecutor });
    const body = Buffer.from(toBinary(GetTaskRequestSchema, create(GetTaskRequestSchema, { id: 'nope' })));
    const error = await rawCall(agent.grpc.target, '/lf.a2a.v1.A2AService/GetTask', body);
    expect(error.code).toBe(status.NOT_FOUND);
    expect(readStatusDetails(error.metadata)[0]).toEqual({
      '@type': ERROR_INFO_TYPE,
      reason: 'TASK_NOT_FOUND',
      domain: 'a2a-protocol.org',
      metadata: { taskId: 'nope' },
    });
    // Our client turns it back into the typed error.
    const typed = await rejection(agent.client().getTask({ id: 'nope' }));
    expect(A2AError.isInstance(typed) && typed.reason).toBe('TASK_NOT_FOUND');
  });

  it('bytes that are not a request message are INVALID_ARGUMENT', async () => {
    agent = await startAgent({ executor: echoExecutor });
    const error = await rawCall(agent.grpc.target, '/lf.a2a.v1.A2AService/GetTask', Buffer.from([0xff, 0xff, 0xff]));
    expect(error.code).toBe(status.INVALID_ARGUMENT);
    expect(readStatusDetails(error.metadata)[0]?.reason).toBe('INVALID_PARAMS');
  });

  it('invalid params carry the google.rpc.BadRequest detail after the ErrorInfo', async () => {
    agent = await startAgent({ executor: echoExecutor });
    const error = await rawCall(agent.grpc.target, '/lf.a2a.v1.A2AService/GetTask', Buffer.alloc(0));
    expect(error.code).toBe(status.INVALID_ARGUMENT);
    const details = readStatusDetails(error.metadata);
    expect(details.map((d) => d['@type'])).toEqual([ERROR_INFO_TYPE, 'type.googleapis.com/google.rpc.BadRequest']);
  });

  it('a control-plane refusal keeps its reason and domain (rate limit -> RESOURCE_EXHAUSTED)', async () => {
    agent = await startAgent({
      executor: echoExecutor,
      rateLimiter: createTokenBucketRateLimiter({ capacity: 1, refillPerSecond: 0.001 }),
    });
    const client = agent.client();
    await client.listTasks({});
    const error = await rejection(client.listTasks({}));
    expect(A2AError.isInstance(error)).toBe(true);
    const a2a = error as A2AError;
    expect(a2a.reason).toBe('RATE_LIMITED');
    expect(a2a.domain).toBe('a2aplane');
    expect(a2a.grpcStatus).toBe('RESOURCE_EXHAUSTED');
    expect(a2a.retryAfterSeconds).toBeGreaterThan(0);
  });

  it('governance runs on gRPC calls: a refused admission is PERMISSION_DENIED with the a2aplane reason, on unary and streaming calls', async () => {
    const admitted: string[] = [];
    agent = await startAgent({
      executor: echoExecutor,
      governance: {
        async admit(input) {
          admitted.push(input.skill);
          throw new PolicyViolationError({ metadata: { skill: input.skill } });
        },
        readTaskContext: () => ({ ok: true, context: undefined }),
      },
    });
    const body = Buffer.from(
      toBinary(
        SendMessageRequestSchema,
        create(SendMessageRequestSchema, { message: { messageId: 'm', role: 1, parts: [{ content: { case: 'text', value: 'x' } }] } }),
      ),
    );
    const error = await rawCall(agent.grpc.target, '/lf.a2a.v1.A2AService/SendMessage', body);
    expect(error.code).toBe(status.PERMISSION_DENIED);
    expect(readStatusDetails(error.metadata)[0]).toMatchObject({
      reason: 'POLICY_VIOLATION',
      domain: 'a2aplane',
      metadata: { skill: 'echo' },
    });
    const streamed = await rejection(collect(agent.client().sendStreamingMessage({ message: userMessage('x') })));
    expect(A2AError.isInstance(streamed) && streamed.reason).toBe('POLICY_VIOLATION');
    expect(admitted).toEqual(['echo', 'echo']);
  });

  it('a stream refused before its first event is an error status (SubscribeToTask on a finished task)', async () => {
    agent = await startAgent({ executor: echoExecutor });
    const client = agent.client();
    const done = await client.sendMessage({ message: userMessage('done') });
    const error = await rejection(collect(client.subscribeToTask({ id: done.task?.id as string })));
    expect(A2AError.isInstance(error) && error.reason).toBe('UNSUPPORTED_OPERATION');
    expect((error as A2AError).grpcStatus).toBe('FAILED_PRECONDITION');
  });

  it('A2A-Version travels as metadata: an unsupported version is refused', async () => {
    agent = await startAgent({ executor: echoExecutor });
    const error = await rejection(agent.client().listTasks({}, { headers: { 'a2a-version': '9.9' } }));
    expect(A2AError.isInstance(error) && error.reason).toBe('VERSION_NOT_SUPPORTED');
  });

  it('A2A-Extensions travel as metadata: a required extension must be declared', async () => {
    const uri = 'https://example.com/ext/v1';
    const card = baseCard({ capabilities: { streaming: true, extensions: [{ uri, required: true }] } });
    agent = await startAgent({ card, executor: echoExecutor });
    const client = agent.client();
    const error = await rejection(client.listTasks({}));
    expect(A2AError.isInstance(error) && error.reason).toBe('EXTENSION_SUPPORT_REQUIRED');
    await expect(client.listTasks({}, { headers: { 'a2a-extensions': uri } })).resolves.toMatchObject({ tasks: [] });
  });
});

describe('deadlines and cancellation', () => {
  it('a deadline stops the blocking wait on the server (the listener is released) and times out the client', async () => {
    const gate = createGate();
    agent = await startAgent({ executor: gatedExecutor(gate) });
    const client = agent.client();
    const pending = rejection(client.sendMessage({ message: userMessage('slow') }, { timeoutMs: 300 }));
    await eventually(() => (agent as TestAgent).core.stats().subscribers === 1);
    expect(await pending).toBeInstanceOf(A2ATimeoutError);
    await eventually(() => (agent as TestAgent).core.stats().subscribers === 0);
    gate.open();
  });

  it('a client that cancels a stream detaches its subscriber on the server', async () => {
    const gate = createGate();
    agent = await startAgent({ executor: gatedExecutor(gate) });
    const controller = new AbortController();
    const stream = agent.client().sendStreamingMessage({ message: userMessage('slow') }, { signal: controller.signal });
    const seen: unknown[] = [];
    const reading = (async () => {
      for await (const event of stream) {
        seen.push(event);
        if (seen.length === 1) controller.abort();
      }
    })();
    expect(await rejection(reading)).toBeInstanceOf(A2AAbortError);
    await eventually(() => (agent as TestAgent).core.stats().subscribers === 0);
    gate.open();
  });
});

describe('client transport', () => {
  it('an unreachable agent is a retryable A2ATransportError', async () => {
    const client = grpcClient({ target: '127.0.0.1:1', credentials: credentials.createInsecure() });
    const error = (await rejection(client.listTasks({}, { timeoutMs: 2000 }))) as { name: string; retryable?: boolean };
    client.close();
    expect(error.name).toBe('A2ATransportError');
    expect(error.retryable).toBe(true);
    expect((error as { status?: number }).status).toBe(503);
  });

  it('an UNAUTHENTICATED status without ErrorInfo (a proxy, say) is a 401 transport error, and the auth provider may resend once', async () => {
    const server = new Server();
    let calls = 0;
    server.addService(a2aServiceDefinition(), {
      listTasks: (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => {
        calls++;
        if (call.metadata.get('authorization')[0] !== 'Bearer fresh') return callback({ code: status.UNAUTHENTICATED, details: 'no' });
        callback(null, Buffer.alloc(0));
      },
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
    );
    let token = 'stale';
    const client = grpcClient({
      target: `127.0.0.1:${port}`,
      credentials: credentials.createInsecure(),
      auth: bearerAuth({
        getToken: () => token,
        refresh: () => {
          token = 'fresh';
        },
      }),
    });
    const plain = grpcClient({ target: `127.0.0.1:${port}`, credentials: credentials.createInsecure() });
    try {
      await expect(client.listTasks({})).resolves.toMatchObject({ tasks: [] });
      expect(calls).toBe(2);
      const refused = (await rejection(plain.listTasks({}))) as { name: string; status?: number; retryable?: boolean };
      expect(refused).toMatchObject({ name: 'A2ATransportError', status: 401, retryable: false });
    } finally {
      client.close();
      plain.close();
      server.forceShutdown();
    }
  });

  it('a stream message larger than maxEventBytes fails the stream with SseEventTooLargeError; onActivity sees the headers', async () => {
    agent = await startAgent({ executor: echoExecutor });
    const transport = agent.client().transport;
    let activity = 0;
    const small = await transport.open(
      'SendStreamingMessage',
      { message: userMessage('a') },
      { maxEventBytes: 20, onActivity: () => activity++ },
    );
    const error = await rejection(collect(small));
    expect(error).toBeInstanceOf(SseEventTooLargeError);
    expect(activity).toBe(1);
    const large = await transport.open('SendStreamingMessage', { message: userMessage('a') }, { maxEventBytes: 1 << 20 });
    expect((await collect(large)).length).toBeGreaterThan(2);
  });

  it('requires explicit credentials', () => {
    expect(() => createGrpcTransportFactory({} as never)).toThrow(TypeError);
    expect(() => new GrpcTransport({ target: '127.0.0.1:1' } as never)).toThrow(TypeError);
  });
});

describe('listenA2AGrpc and bindA2AGrpc', () => {
  it('listenA2AGrpc serves a core on 127.0.0.1 and close() stops it', async () => {
    const core = createA2AServer({ card: baseCard(), executor: echoExecutor });
    const listener = await listenA2AGrpc(core, { port: 0, credentials: ServerCredentials.createInsecure() });
    expect(listener.target).toBe(`127.0.0.1:${listener.port}`);
    expect(withGrpcInterface(baseCard(), listener.target).supportedInterfaces.at(-1)).toEqual({
      url: listener.target,
      protocolBinding: 'GRPC',
      protocolVersion: '1.0',
    });
    const client = grpcClient({ target: listener.target, credentials: credentials.createInsecure() });
    try {
      expect((await client.sendMessage({ message: userMessage('x') })).task?.status.state).toBe('TASK_STATE_COMPLETED');
    } finally {
      client.close();
      await listener.close(100);
      await core.close();
    }
    const after = grpcClient({ target: listener.target, credentials: credentials.createInsecure() });
    const error = (await rejection(after.listTasks({}))) as { name: string };
    after.close();
    expect(error.name).toBe('A2ATransportError');
  });

  it('requires credentials and a valid port; serve() once', async () => {
    await expect(bindA2AGrpc({ port: 0 } as never)).rejects.toThrow(TypeError);
    await expect(bindA2AGrpc({ port: 70000, credentials: ServerCredentials.createInsecure() })).rejects.toThrow(RangeError);
    const core = createA2AServer({ card: baseCard(), executor: echoExecutor });
    const binding = await bindA2AGrpc({ port: 0, credentials: ServerCredentials.createInsecure() });
    binding.serve(core);
    expect(() => binding.serve(core)).toThrow(/once/);
    await binding.close(100);
    await core.close();
  });

  it('channelz is off unless the server options turn it on', async () => {
    // grpc-js keeps the flag private; channelz's per-call bookkeeping runs only when it is set.
    const enabled = (binding: { server: unknown }) => (binding.server as { channelzEnabled: boolean }).channelzEnabled;
    const plain = await bindA2AGrpc({ port: 0, credentials: ServerCredentials.createInsecure() });
    const withChannelz = await bindA2AGrpc({
      port: 0,
      credentials: ServerCredentials.createInsecure(),
      serverOptions: { 'grpc.enable_channelz': 1 },
    });
    expect([enabled(plain), enabled(withChannelz)]).toEqual([false, true]);
    await plain.close(100);
    await withChannelz.close(100);
  });
});

describe('request signatures over gRPC (RFC 9421 profile: POST, @path = method path, digest of the request message)', () => {
  it('the auth provider sees the call as POST http://<target><method path> with the serialized message as body; the authenticator sees the same', async () => {
    const seen: Array<{ method: string; target?: string; host?: string; body?: Uint8Array }> = [];
    agent = await startAgent({
      executor: echoExecutor,
      authenticate: async (request) => {
        seen.push({ method: request.method, target: request.target, host: request.headers.host, body: request.body });
        return { id: 'signed', scheme: 'test' };
      },
    });
    const sent: Array<{ method: string; url: string; body: unknown }> = [];
    const client = grpcClient({
      target: agent.grpc.target,
      credentials: credentials.createInsecure(),
      auth: {
        apply(request) {
          sent.push({ method: request.method, url: request.url.href, body: request.body });
          request.headers.set('x-signed', 'yes');
        },
      },
    });
    try {
      const message = userMessage('sign me');
      await client.sendMessage({ message });
      const path = '/lf.a2a.v1.A2AService/SendMessage';
      expect(sent).toEqual([{ method: 'POST', url: `http://${agent.grpc.target}${path}`, body: expect.any(Uint8Array) }]);
      // The body is the request message itself (what the content-digest covers).
      expect(fromBinary(SendMessageRequestSchema, sent[0]?.body as Uint8Array).message?.messageId).toBe(message.messageId);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ method: 'POST', target: path, host: agent.grpc.target });
      expect(Buffer.from(seen[0]?.body as Uint8Array)).toEqual(Buffer.from(sent[0]?.body as Uint8Array));
      // The server's card names its gRPC target, so a signature made for it passes the default authority check.
      expect(agent.card.supportedInterfaces.map((i) => i.url)).toContain(agent.grpc.target);
    } finally {
      client.close();
    }
  });
});

describe('authRequestOf (the authenticator view of a call)', () => {
  it('host is the :authority (port 80 left out, as the signer does); a host metadata entry never stands in for it', async () => {
    const { authRequestOf } = await import('../src/metadata.js');
    const metadata = new Metadata();
    metadata.set('host', 'evil.example.com');
    metadata.set('signature', 'a2a=:AA==:');
    const call = (host: string) => ({
      metadata,
      getHost: () => host,
      getPath: () => '/lf.a2a.v1.A2AService/GetTask',
      request: Buffer.from([1, 2]),
    });
    expect(authRequestOf(call('127.0.0.1:50051'))).toMatchObject({
      method: 'POST',
      target: '/lf.a2a.v1.A2AService/GetTask',
      headers: { host: '127.0.0.1:50051', signature: 'a2a=:AA==:' },
      body: Buffer.from([1, 2]),
    });
    expect(authRequestOf(call('Agent.Example.com:80')).headers.host).toBe('agent.example.com');
    // Given the metadata alone (the earlier form): headers only.
    expect(authRequestOf(metadata)).toEqual({
      headers: { host: 'evil.example.com', signature: 'a2a=:AA==:' },
      query: expect.any(URLSearchParams),
      method: 'POST',
    });
  });
});
