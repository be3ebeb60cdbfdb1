import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseServerSentEvents } from '@a2aplane/a2a-client';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresTaskEventBus } from '../src/bus/postgres-task-event-bus.js';
import { POSTGRES_URL } from '@a2aplane/test-utils';
import { connectTestPool, dropSchema, migratedSchema } from './postgres.js';

type Json = Record<string, unknown>;
let pool: pg.Pool;
let schema: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  pool = await connectTestPool('a2a-postgres durability');
  schema = await migratedSchema(pool, 'durable');
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await dropSchema(pool, schema);
  await pool.end();
});

/** A replica in a child process (the server and this package from source, through tsx). */
async function startChild(): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(fileURLToPath(new URL('./fixtures/replica.ts', import.meta.url)), [], {
    execArgv: ['--conditions=@a2aplane/source', '--import', 'tsx'],
    env: { ...process.env, POSTGRES_URL, PG_SCHEMA: schema },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.push(child);
  const ready = await new Promise<{ url: string }>((resolve, reject) => {
    child.once('message', (m) => resolve(m as { url: string }));
    child.once('exit', (code) => reject(new Error(`the replica exited (${code}) before it was ready`)));
  });
  return { child, url: ready.url };
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

let nextId = 0;
const post = (url: string, method: string, params: Json, headers: Record<string, string> = {}) =>
  fetch(`${url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++nextId, method, params }),
  });
const message = (text: string) => ({ messageId: `m-${process.pid}-${++nextId}`, role: 'ROLE_USER', parts: [{ text }] });

describe('kill -9 of a replica between an acknowledgement and the next read (PostgreSQL defaults)', () => {
  it('loses no acknowledged task and no acknowledged event; another replica resumes the stream with Last-Event-ID', async () => {
    const first = await startChild();
    // 1. Blocking sends: each answer is the acknowledgement of a completed task.
    const acknowledged: { id: string; text: string }[] = [];
    for (let i = 0; i < 20; i++) {
      const body = (await (await post(first.url, 'SendMessage', { message: message(`fast-${i}`) })).json()) as { result: { task: Json } };
      acknowledged.push({ id: body.result.task.id as string, text: `done:fast-${i}` });
    }
    // 2. A stream: every event the client has read is acknowledged.
    const response = await post(first.url, 'SendStreamingMessage', { message: message('slow') });
    const seen: { id: string; data: Json }[] = [];
    const reader = parseServerSentEvents(response.body as ReadableStream<Uint8Array>)[Symbol.asyncIterator]();
    let taskId = '';
    while (seen.filter((e) => e.data.artifactUpdate).length < 3) {
      const { value, done } = await reader.next();
      if (done || value === undefined) throw new Error('the stream ended before three chunks');
      const result = (JSON.parse(value.data) as { result: Json }).result;
      seen.push({ id: value.id as string, data: result });
      taskId ||= ((result.task as Json | undefined)?.id ?? (result.statusUpdate as Json | undefined)?.taskId ?? '') as string;
      if (result.artifactUpdate) await fetch(`${first.url}/next`, { method: 'POST' });
    }
    // Killed right after the last acknowledgement: nothing gets a chance to flush or close.
    await kill(first.child);

    const second = await startChild();
    for (const task of acknowledged) {
      const got = (await (await post(second.url, 'GetTask', { id: task.id })).json()) as { result: { status: Json; artifacts: Json[] } };
      expect(got.result.status.state).toBe('TASK_STATE_COMPLETED');
      expect(JSON.stringify(got.result.artifacts)).toContain(task.text);
    }
    // Every acknowledged event is in the log, in order, under the id the client saw.
    const bus = createPostgresTaskEventBus({ pool, schema });
    const log = await bus.read({ tenant: '', taskId });
    await bus.close();
    const ids = seen.map((e) => e.id);
    expect(log?.events.map((e) => e.id).slice(0, ids.length)).toEqual(ids);
    expect(log?.events.map((e) => e.event).slice(0, ids.length)).toEqual(seen.map((e) => e.data));
    // Resuming on the new replica from the first event: the rest once each, in order, with no gap.
    const resumed = await post(second.url, 'SubscribeToTask', { id: taskId }, { 'Last-Event-ID': ids[0] as string });
    const rest: string[] = [];
    for await (const event of parseServerSentEvents(resumed.body as ReadableStream<Uint8Array>)) {
      rest.push(event.id as string);
      if (rest.length === ids.length - 1) break;
    }
    expect(rest).toEqual(ids.slice(1));
    await kill(second.child);
  }, 60_000);
});
