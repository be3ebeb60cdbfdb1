// Issue 19 bench: resume across replicas. Two replicas (two servers, two Redis clients, one key
// prefix) run the Redis task store and event bus. Each trial streams a task from replica A, drops
// the connection after a random number of events, and resumes on replica B with the last
// Last-Event-ID seen; it counts events lost and duplicated. The real SIGKILL of a replica is in
// `pnpm demo:cluster`. A suite of `pnpm bench` (`--only replicas-resume`).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { num, passFail, table } from '../lib/format.js';
import type { RunOptions, SuiteResult } from '../lib/types.js';
import { parseServerSentEvents } from '@a2aplane/a2a-client';
import { createRedisConnection, createRedisTaskEventBus, createRedisTaskStore, type RedisConnection } from '@a2aplane/a2a-redis';
import {
  type AgentExecutor,
  createA2AServer,
  createAgentCard,
  createNodeHttpHandler,
  createTaskUpdater,
} from '@a2aplane/a2a-server-express';

type Json = Record<string, unknown>;
const EVENTS = 20;
const keyPrefix = `a2a-bench-resume:${process.pid}:${globalThis.crypto.randomUUID()}:`;

const executor: AgentExecutor = {
  async execute(context, events) {
    const t = createTaskUpdater(context, events);
    t.submit();
    t.startWork();
    for (let i = 0; i < EVENTS; i++) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      t.addArtifact([{ text: `e${i}` }], { artifactId: 'a', append: i > 0, lastChunk: i === EVENTS - 1 });
    }
    t.complete();
  },
};

async function replica(): Promise<{ url: string; http: Server; client: RedisConnection; close(): Promise<void> }> {
  const client = createRedisConnection({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' });
  await client.connect();
  const server = createA2AServer({
    card: createAgentCard({
      baseUrl: 'http://127.0.0.1',
      name: 'resume bench',
      description: 'streams events',
      skills: [{ id: 's', name: 's', description: 's', tags: [] }],
      capabilities: { streaming: true },
    }),
    executor,
    store: createRedisTaskStore({ client, keyPrefix, ttlMs: 60_000 }),
    eventBus: createRedisTaskEventBus({ client, keyPrefix, retentionMs: 60_000 }),
  });
  const http = createServer(createNodeHttpHandler(server, { heartbeatMs: 0 }));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    http,
    client,
    async close() {
      await server.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
      client.destroy();
    },
  };
}

/** The JSON-RPC results of an SSE response, with their event ids (the client's SSE parser). */
async function* sse(response: Response): AsyncGenerator<{ id: string | undefined; result: Json }> {
  for await (const event of parseServerSentEvents(response.body as ReadableStream<Uint8Array>)) {
    yield { id: event.id, result: ((JSON.parse(event.data) as Json).result ?? {}) as Json };
  }
}

const call = (url: string, method: string, params: Json, headers: Record<string, string> = {}, signal?: AbortSignal) =>
  fetch(`${url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    ...(signal ? { signal } : {}),
  });
const textOf = (result: Json): string | undefined =>
  ((result.artifactUpdate as Json | undefined)?.artifact as { parts?: { text?: string }[] } | undefined)?.parts?.[0]?.text;

export async function runReplicasResume(options: RunOptions): Promise<SuiteResult> {
  const trials = options.quick ? 50 : 200;
  const a = await replica();
  const b = await replica();
  let lost = 0;
  let duplicated = 0;
  let failedTrials = 0;
  const started = performance.now();
  try {
    for (let trial = 0; trial < trials; trial++) {
      const cut = 1 + Math.floor(Math.random() * (EVENTS - 2));
      const dropped = new AbortController();
      const first = await call(
        a.url,
        'SendStreamingMessage',
        { message: { messageId: globalThis.crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'go' }] } },
        {},
        dropped.signal,
      );
      const seen: string[] = [];
      let lastId: string | undefined;
      let taskId = '';
      for await (const event of sse(first)) {
        lastId = event.id ?? lastId;
        taskId ||= String((event.result.task as Json | undefined)?.id ?? (event.result.statusUpdate as Json | undefined)?.taskId ?? '');
        const text = textOf(event.result);
        if (text) seen.push(text);
        if (seen.length >= cut) break;
      }
      dropped.abort();
      const resumed = await call(
        b.url,
        'SubscribeToTask',
        { id: taskId },
        lastId ? { 'Last-Event-ID': lastId } : {},
        AbortSignal.timeout(10_000),
      );
      if (resumed.status !== 200) {
        failedTrials += 1;
        continue;
      }
      for await (const event of sse(resumed)) {
        const text = textOf(event.result);
        if (text) seen.push(text);
      }
      const unique = new Set(seen);
      duplicated += seen.length - unique.size;
      for (let i = 0; i < EVENTS; i++) if (!unique.has(`e${i}`)) lost += 1;
    }
  } finally {
    await a.close();
    await b.close();
    const admin = createRedisConnection({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' });
    await admin.connect();
    for await (const keys of admin.scanIterator({ MATCH: `${keyPrefix}*`, COUNT: 500 })) if (keys.length > 0) await admin.unlink(keys);
    admin.destroy();
  }
  const seconds = (performance.now() - started) / 1000;
  const pass = lost === 0 && duplicated === 0 && failedTrials === 0;
  const markdown = [
    `${trials} trials: a task streams ${EVENTS} events from replica A (Redis store + event bus), the connection is dropped after a random`,
    'number of events, and the stream is resumed on replica B with the last `Last-Event-ID` seen. The SIGKILL of a replica mid-stream',
    'is shown by `pnpm demo:cluster` (and its test).',
    '',
    table(
      ['trials', 'events per task', 'lost', 'duplicated', 'failed trials', 'seconds', 'goal: 0 lost, 0 duplicated'],
      [[String(trials), String(EVENTS), String(lost), String(duplicated), String(failedTrials), num(seconds, 1), passFail(pass)]],
    ),
  ].join('\n');
  return {
    title: 'Resume across replicas (Redis)',
    markdown,
    data: { trials, eventsPerTask: EVENTS, lost, duplicated, failedTrials, seconds },
  };
}
