import { afterEach, describe, expect, it } from 'vitest';
import { type AgentExecutor, createTaskUpdater } from '../src/index.js';
import { createGate, readSse, rest, rpc, startServer, type TestServer, userMessage, V1 } from './helpers.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Json = Record<string, unknown>;

/** An executor that submits, waits for the gate, then streams `chunks` artifact chunks and completes. */
function gatedExecutor(gate: { wait: Promise<void> }, chunks = 5): AgentExecutor {
  return {
    async execute(context, events) {
      const t = createTaskUpdater(context, events);
      t.submit();
      t.startWork();
      await gate.wait;
      for (let i = 0; i < chunks; i++) t.addArtifact([{ text: `c${i}` }], { artifactId: 'a', append: i > 0, lastChunk: i === chunks - 1 });
      t.complete();
    },
  };
}

async function* sseEvents(response: Response): AsyncGenerator<{ id: string | undefined; data: Json }> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let index = buffer.indexOf('\n\n');
    while (index !== -1) {
      const block = buffer.slice(0, index);
      buffer = buffer.slice(index + 2);
      let id: string | undefined;
      let data: string | undefined;
      for (const line of block.split('\n')) {
        if (line.startsWith('id: ')) id = line.slice(4);
        if (line.startsWith('data: ')) data = line.slice(6);
      }
      if (data !== undefined) yield { id, data: JSON.parse(data) as Json };
      index = buffer.indexOf('\n\n');
    }
  }
}

const streamRequest = (url: string, params: Json, signal?: AbortSignal) =>
  fetch(`${url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...V1 },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'req-1', method: 'SendStreamingMessage', params }),
    ...(signal ? { signal } : {}),
  });

describe('SSE streaming (spec §3.5.2, ADR M2)', () => {
  it('M2 test 1: events arrive in order with increasing ids; JSON-RPC frames carry the request id', async () => {
    const gate = createGate();
    gate.open();
    server = await startServer({ executor: gatedExecutor(gate) });
    const response = await streamRequest(server.url, { message: userMessage('x') });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const { events } = await readSse(response);
    expect(events.length).toBe(8);
    const ids = events.map((e) => Number(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    for (const e of events) expect(e.data).toMatchObject({ jsonrpc: '2.0', id: 'req-1' });
    expect(Object.keys(events[0]?.data.result as Json)).toEqual(['task']);
    const last = events.at(-1)?.data.result as Json;
    expect(((last.statusUpdate as Json).status as Json).state).toBe('TASK_STATE_COMPLETED');
  });

  it('M2 test 2: two concurrent streams of one task get the same events in the same order', async () => {
    const gate = createGate();
    server = await startServer({ executor: gatedExecutor(gate) });
    const first = await rest(server.url, 'POST', '/message:send', {
      message: userMessage('x'),
      configuration: { returnImmediately: true },
    });
    const taskId = ((first.body as Json).task as Json).id as string;
    const a = fetch(`${server.url}/a2a/rest/tasks/${taskId}:subscribe`, { headers: V1 });
    const b = fetch(`${server.url}/a2a/rest/tasks/${taskId}:subscribe`, { method: 'POST', headers: V1 });
    const [ra, rb] = await Promise.all([a, b]);
    // Both are attached once their first (Task) event is out; then let the agent go on.
    const ita = sseEvents(ra);
    const itb = sseEvents(rb);
    const firstA = await ita.next();
    const firstB = await itb.next();
    expect(Object.keys(firstA.value?.data as Json)).toEqual(['task']);
    expect(Object.keys(firstB.value?.data as Json)).toEqual(['task']);
    gate.open();
    const restA: unknown[] = [];
    const restB: unknown[] = [];
    for await (const e of ita) restA.push(e);
    for await (const e of itb) restB.push(e);
    expect(restA.length).toBe(6);
    expect(restB).toEqual(restA);
  });

  it('M2 test 3: SubscribeToTask with Last-Event-ID resumes exactly after that event', async () => {
    const gate = createGate();
    server = await startServer({ executor: gatedExecutor(gate, 6) });
    const abort = new AbortController();
    const response = await streamRequest(server.url, { message: userMessage('x') }, abort.signal);
    const it1 = sseEvents(response);
    const seen: { id: string | undefined; data: Json }[] = [];
    seen.push((await it1.next()).value as { id: string; data: Json });
    seen.push((await it1.next()).value as { id: string; data: Json });
    const taskId = (((seen[0] as { data: Json }).data.result as Json).task as Json).id as string;
    abort.abort();
    gate.open();
    // Wait until the task is done, so the resumed stream must come from the replay log.
    for (let i = 0; i < 50; i++) {
      const got = await rpc(server.url, 'GetTask', { id: taskId });
      if (((got.body.result as Json).status as Json).state === 'TASK_STATE_COMPLETED') break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const resumed = await fetch(`${server.url}/a2a/rest/tasks/${taskId}:subscribe`, {
      headers: { ...V1, 'Last-Event-ID': seen[1]?.id as string },
    });
    const { events } = await readSse(resumed);
    const log = (await server.server.eventBus.read({ tenant: '', taskId }))?.events ?? [];
    const all = [...seen.map((e) => ({ id: e.id, data: e.data.result })), ...events.map((e) => ({ id: e.id, data: e.data }))];
    expect(all).toEqual(log.map((e) => ({ id: e.id, data: e.event })));
  });

  it('SubscribeToTask: current Task first; unknown task 404; terminal task is UnsupportedOperation', async () => {
    const gate = createGate();
    gate.open();
    server = await startServer({ executor: gatedExecutor(gate) });
    const done = await rest(server.url, 'POST', '/message:send', { message: userMessage('x') });
    const id = ((done.body as Json).task as Json).id as string;
    const terminal = await fetch(`${server.url}/a2a/rest/tasks/${id}:subscribe`, { headers: V1 });
    expect(terminal.status).toBe(400);
    const missing = await fetch(`${server.url}/a2a/rest/tasks/nope:subscribe`, { headers: V1 });
    expect(missing.status).toBe(404);
  });

  it('heartbeat comments are sent while the task is quiet', async () => {
    const gate = createGate();
    server = await startServer({ executor: gatedExecutor(gate, 1) }, { heartbeatMs: 10 });
    const response = await streamRequest(server.url, { message: userMessage('x') });
    setTimeout(() => gate.open(), 80);
    const { comments, events } = await readSse(response);
    expect(comments).toContain('heartbeat');
    expect(events.length).toBe(4);
  });

  it('client disconnect releases every listener', async () => {
    const gate = createGate();
    server = await startServer({ executor: gatedExecutor(gate) });
    const abort = new AbortController();
    const response = await streamRequest(server.url, { message: userMessage('x') }, abort.signal);
    const iterator = sseEvents(response);
    await iterator.next();
    expect(server.server.stats().subscribers).toBe(1);
    abort.abort();
    for (let i = 0; i < 50 && server.server.stats().subscribers > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(server.server.stats().subscribers).toBe(0);
    gate.open();
    for (let i = 0; i < 50 && server.server.stats().liveTasks > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(server.server.stats().liveTasks).toBe(0);
  });

  it('a slow consumer is dropped with SlowConsumerError instead of buffering without bound', async () => {
    const gate = createGate();
    server = await startServer({ executor: gatedExecutor(gate, 20), subscriberBufferSize: 4 });
    const result = await server.server.handle({ method: 'SendStreamingMessage', params: { message: userMessage('x') }, version: '1.0' });
    expect(result.kind).toBe('stream');
    if (result.kind !== 'stream') return;
    gate.open();
    await new Promise((r) => setTimeout(r, 30));
    const iterator = result.events[Symbol.asyncIterator]();
    await expect(iterator.next()).rejects.toThrow(/resubscribe with Last-Event-ID/);
    expect(server.server.stats().subscribers).toBe(0);
  });
});

describe('in-process stream (remote ≡ local)', () => {
  it('server.stream yields the same StreamResponses as SendStreamingMessage', async () => {
    const gate = createGate();
    gate.open();
    server = await startServer({ executor: gatedExecutor(gate, 2) });
    const local: Json[] = [];
    for await (const event of server.server.stream({ message: userMessage('x') })) local.push(event as Json);
    const remote = (await readSse(await streamRequest(server.url, { message: userMessage('x') }))).events.map((e) => e.data.result as Json);
    const shape = (events: Json[]) => events.map((e) => Object.keys(e)[0]);
    expect(shape(local)).toEqual(shape(remote));
    expect(shape(local)).toEqual(['task', 'statusUpdate', 'artifactUpdate', 'artifactUpdate', 'statusUpdate']);
  });
});
