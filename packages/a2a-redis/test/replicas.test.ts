import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseServerSentEvents } from '@a2aplane/a2a-client';
import {
  type A2AServer,
  type AgentExecutor,
  createA2AServer,
  createAgentCard,
  createNodeHttpHandler,
  createTaskUpdater,
} from '@a2aplane/a2a-server-express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisTaskEventBus } from '../src/bus/redis-task-event-bus.js';
import { createRedisConnection, type RedisConnection } from '../src/connection.js';
import { createRedisTaskStore } from '../src/store/redis-task-store.js';
import { cleanKeys, connectTestRedis, type RedisProxy, startRedisProxy, type TestRedisClient, testKeyPrefix } from './redis.js';

type Json = Record<string, unknown>;

/** Per task id: opened by the test to let the executor finish; records aborts. */
const gates = new Map<string, { open(): void; wait: Promise<void> }>();
const aborted = new Set<string>();
const gateFor = (id: string) => {
  let gate = gates.get(id);
  if (!gate) {
    let open!: () => void;
    const wait = new Promise<void>((resolve) => {
      open = resolve;
    });
    gate = { open, wait };
    gates.set(id, gate);
  }
  return gate;
};

/** Works, streams 3 chunks, waits for its gate (or a cancel), streams 3 more and completes. */
const executor: AgentExecutor = {
  async execute(context, events) {
    const t = createTaskUpdater(context, events);
    t.submit();
    t.startWork();
    for (let i = 0; i < 3; i++) t.addArtifact([{ text: `c${i}` }], { artifactId: 'a', append: i > 0 });
    const canceled = new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve(), { once: true }));
    await Promise.race([gateFor(context.taskId).wait, canceled]);
    if (context.signal.aborted) {
      aborted.add(context.taskId);
      return;
    }
    for (let i = 3; i < 6; i++) t.addArtifact([{ text: `c${i}` }], { artifactId: 'a', append: true, lastChunk: i === 5 });
    t.complete();
  },
};

interface Replica {
  url: string;
  server: A2AServer;
  http: Server;
  client: RedisConnection;
}

/** The JSON-RPC messages of an SSE response, with their event ids (the client's SSE parser). */
async function* sse(response: Response): AsyncGenerator<{ id: string | undefined; data: Json }> {
  for await (const event of parseServerSentEvents(response.body as ReadableStream<Uint8Array>)) {
    yield { id: event.id, data: JSON.parse(event.data) as Json };
  }
}

let nextId = 0;
const post = (url: string, method: string, params: Json, headers: Record<string, string> = {}, signal?: AbortSignal) =>
  fetch(`${url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++nextId, method, params }),
    ...(signal ? { signal } : {}),
  });
const rpc = async (url: string, method: string, params: Json) => (await (await post(url, method, params)).json()) as Json;
const message = (text: string) => ({ messageId: `m-${process.pid}-${++nextId}-${Date.now()}`, role: 'ROLE_USER', parts: [{ text }] });
/** The artifact chunk texts of a list of stream results. */
const chunks = (results: Json[]): string[] =>
  results.flatMap((r) => {
    const update = r.artifactUpdate as { artifact: { parts: { text: string }[] } } | undefined;
    return update ? update.artifact.parts.map((p) => p.text) : [];
  });

describe('replicas of one agent on one Redis (needs Redis)', () => {
  const keyPrefix = testKeyPrefix('replicas');
  const replicas: Replica[] = [];
  let admin: TestRedisClient;
  let proxy: RedisProxy;

  async function startReplica(url: string): Promise<Replica> {
    const client = createRedisConnection({ url, maxReconnectDelayMs: 100 });
    await client.connect();
    const server = createA2AServer({
      card: createAgentCard({
        baseUrl: 'http://127.0.0.1',
        name: 'replica',
        description: 'streams chunks',
        skills: [{ id: 'chunks', name: 'Chunks', description: 'streams chunks', tags: [] }],
        capabilities: { streaming: true },
      }),
      executor,
      store: createRedisTaskStore({ client, keyPrefix, commandTimeoutMs: 500 }),
      eventBus: createRedisTaskEventBus({ client, keyPrefix }),
    });
    const http = createServer(createNodeHttpHandler(server));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const replica = { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`, server, http, client };
    replicas.push(replica);
    return replica;
  }

  beforeAll(async () => {
    admin = await connectTestRedis('a2a-redis replica tests');
    proxy = await startRedisProxy();
  });
  afterAll(async () => {
    for (const gate of gates.values()) gate.open();
    for (const r of replicas) {
      await r.server.close();
      r.http.closeAllConnections();
      await new Promise((resolve) => r.http.close(resolve));
      r.client.destroy();
    }
    await proxy.close();
    await cleanKeys(admin, keyPrefix);
    await admin.quit();
  });

  it('a task created on replica A is read and listed on replica B', async () => {
    const a = await startReplica(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const b = await startReplica(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const sent = await rpc(a.url, 'SendMessage', { message: message('hi'), configuration: { returnImmediately: true } });
    const task = (sent.result as { task: { id: string } }).task;
    expect(task.id).toBeTruthy();
    gateFor(task.id).open();
    let state = '';
    for (let i = 0; i < 100 && state !== 'TASK_STATE_COMPLETED'; i++) {
      const got = await rpc(b.url, 'GetTask', { id: task.id });
      state = (got.result as { status: { state: string } }).status.state;
      if (state !== 'TASK_STATE_COMPLETED') await new Promise((r) => setTimeout(r, 20));
    }
    expect(state).toBe('TASK_STATE_COMPLETED');
    const listed = await rpc(b.url, 'ListTasks', {});
    expect((listed.result as { tasks: { id: string }[] }).tasks.map((t) => t.id)).toContain(task.id);
  });

  it('a stream started on A resumes on B with Last-Event-ID: every later event once, in order', async () => {
    const [a, b] = replicas as [Replica, Replica];
    const dropped = new AbortController();
    const response = await post(a.url, 'SendStreamingMessage', { message: message('stream') }, {}, dropped.signal);
    const first: { id: string | undefined; data: Json }[] = [];
    let taskId = '';
    for await (const event of sse(response)) {
      first.push(event);
      const result = event.data.result as Json;
      taskId ||= ((result.task as Json | undefined)?.id ?? (result.statusUpdate as Json | undefined)?.taskId ?? '') as string;
      if (chunks([result]).includes('c1')) break;
    }
    // The connection to A drops mid-stream; the client resumes on B from the last id it saw.
    dropped.abort();
    const lastId = first.at(-1)?.id as string;
    expect(lastId).toMatch(/^\d+-\d+$/);
    const resumed = await post(b.url, 'SubscribeToTask', { id: taskId }, { 'Last-Event-ID': lastId });
    expect(resumed.status).toBe(200);
    const rest: Json[] = [];
    const reading = (async () => {
      for await (const event of sse(resumed)) rest.push(event.data.result as Json);
    })();
    await new Promise((r) => setTimeout(r, 100));
    gateFor(taskId).open();
    await reading;
    const all = [...chunks(first.map((e) => e.data.result as Json)), ...chunks(rest)];
    expect(all).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5']);
    expect((rest.at(-1)?.statusUpdate as { status?: { state?: string } } | undefined)?.status?.state).toBe('TASK_STATE_COMPLETED');
  });

  it('CancelTask sent to B stops the executor running on A', async () => {
    const [a, b] = replicas as [Replica, Replica];
    const sent = await rpc(a.url, 'SendMessage', { message: message('cancel me'), configuration: { returnImmediately: true } });
    const taskId = (sent.result as { task: { id: string } }).task.id;
    // Let A register as the task's runner.
    await new Promise((r) => setTimeout(r, 100));
    const canceled = await rpc(b.url, 'CancelTask', { id: taskId });
    expect((canceled.result as { status: { state: string } }).status.state).toBe('TASK_STATE_CANCELED');
    for (let i = 0; i < 100 && !aborted.has(taskId); i++) await new Promise((r) => setTimeout(r, 20));
    expect(aborted.has(taskId)).toBe(true);
  });

  it('Redis down: the replica answers 503 SERVICE_UNAVAILABLE with Retry-After, stays up, and serves again when Redis is back', async () => {
    const c = await startReplica(proxy.url);
    const ok = await rpc(c.url, 'ListTasks', {});
    expect(ok.error).toBeUndefined();
    await proxy.down();
    const response = await fetch(`${c.url}/a2a/rest/tasks`, { headers: { 'A2A-Version': '1.0' } });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    const body = (await response.json()) as { error: { details: { reason?: string; metadata?: Json }[] } };
    expect(body.error.details[0]).toMatchObject({ reason: 'SERVICE_UNAVAILABLE', metadata: { backend: 'redis' } });
    expect(JSON.stringify(body)).not.toMatch(/127\.0\.0\.1|ECONN|at .*\.ts/);
    const viaRpc = await rpc(c.url, 'SendMessage', { message: message('while down') });
    expect((viaRpc.error as { code: number }).code).toBe(-32000);
    await proxy.up();
    let back: Json = {};
    for (let i = 0; i < 100; i++) {
      back = await rpc(c.url, 'ListTasks', {});
      if (!back.error) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(back.error).toBeUndefined();
  });
});
