import type { SendMessageRequest, StreamResponse } from '@a2aplane/a2a-types';
import { createHash as createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type AgentExecutor, createA2AServer, createTaskUpdater, InMemoryTaskStore } from '../src/index.js';
import { plainSha256Base64url, sendFingerprint, sha256Base64url } from '../src/core/send-fingerprint.js';
import { sha256 } from '../src/core/sha256.js';
import { testCard } from './helpers.js';

/** An executor that counts its runs and holds each task until `release()` is called. */
function heldExecutor() {
  let runs = 0;
  const waiting: Array<() => void> = [];
  const executor: AgentExecutor = {
    async execute(context, events) {
      runs++;
      const task = createTaskUpdater(context, events);
      task.submit();
      task.startWork('working');
      await new Promise<void>((resolve) => waiting.push(resolve));
      task.addArtifact([{ text: 'done' }], { artifactId: 'out' });
      task.complete();
    },
  };
  return {
    executor,
    get runs() {
      return runs;
    },
    release: () => {
      for (const resolve of waiting.splice(0)) resolve();
    },
  };
}

const send = (messageId: string, extra: Partial<SendMessageRequest['message']> = {}): SendMessageRequest => ({
  message: { messageId, role: 'ROLE_USER', parts: [{ text: 'hi' }], ...extra },
});

const taskOf = (response: { kind: string; result?: unknown }) =>
  (response as { result: { task: { id: string; status: { state: string } } } }).result.task;

describe('idempotent SendMessage (spec §3.3.1)', () => {
  it('the same messageId twice from one caller makes one task and runs the executor once', async () => {
    const agent = heldExecutor();
    const server = createA2AServer({ card: testCard(), executor: agent.executor });
    const first = server.handle({ method: 'SendMessage', params: send('m-1'), version: '1.0' });
    const second = server.handle({ method: 'SendMessage', params: send('m-1'), version: '1.0' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    agent.release();
    const [a, b] = await Promise.all([first, second]);
    expect(taskOf(a).id).toBe(taskOf(b).id);
    expect(taskOf(b).status.state).toBe('TASK_STATE_COMPLETED');
    // Again after the task ended: the original task, as it is now.
    const third = await server.handle({ method: 'SendMessage', params: send('m-1'), version: '1.0' });
    expect(taskOf(third).id).toBe(taskOf(a).id);
    expect(agent.runs).toBe(1);
    const listed = await server.handle({ method: 'ListTasks', params: {}, version: '1.0' });
    expect((listed as { result: { totalSize: number } }).result.totalSize).toBe(1);
    // Another messageId is another task.
    const other = server.handle({ method: 'SendMessage', params: send('m-2'), version: '1.0' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    agent.release();
    expect(taskOf(await other).id).not.toBe(taskOf(a).id);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(server.stats().liveTasks).toBe(0);
    await server.close();
  });

  it('a repeated streaming send streams the original task, not a new one', async () => {
    const agent = heldExecutor();
    const server = createA2AServer({ card: testCard(), executor: agent.executor });
    const collect = async () => {
      const events: StreamResponse[] = [];
      for await (const event of server.stream(send('s-1'))) events.push(event);
      return events;
    };
    const first = collect();
    await new Promise((resolve) => setTimeout(resolve, 10));
    const second = collect();
    await new Promise((resolve) => setTimeout(resolve, 10));
    agent.release();
    const [a, b] = await Promise.all([first, second]);
    expect(agent.runs).toBe(1);
    expect(b[0]?.task?.id).toBe(a[0]?.task?.id);
    expect(b.at(-1)?.statusUpdate?.status.state ?? b.at(-1)?.task?.status.state).toBe('TASK_STATE_COMPLETED');
    // After the task ended: one event, the task as it is now, and nothing left live.
    const after = await collect();
    expect(after).toHaveLength(1);
    expect(after[0]?.task).toMatchObject({ id: a[0]?.task?.id, status: { state: 'TASK_STATE_COMPLETED' } });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(server.stats()).toEqual({ liveTasks: 0, subscribers: 0 });
    await server.close();
  });

  it('keys are per caller: another principal with the same messageId gets its own task', async () => {
    const agent = heldExecutor();
    const server = createA2AServer({ card: testCard(), executor: agent.executor });
    const alice = server.handle({
      method: 'SendMessage',
      params: send('m-1'),
      version: '1.0',
      principal: { id: 'alice', scheme: 'bearer' },
    });
    const bob = server.handle({ method: 'SendMessage', params: send('m-1'), version: '1.0', principal: { id: 'bob', scheme: 'bearer' } });
    await new Promise((resolve) => setTimeout(resolve, 10));
    agent.release();
    const [a, b] = await Promise.all([alice, bob]);
    expect(taskOf(a).id).not.toBe(taskOf(b).id);
    expect(agent.runs).toBe(2);
    await server.close();
  });

  it('the same messageId with another message is a new message: it runs, and its own retry is deduplicated', async () => {
    const agent = heldExecutor();
    const server = createA2AServer({ card: testCard(), executor: agent.executor });
    const run = async (params: SendMessageRequest) => {
      const pending = server.handle({ method: 'SendMessage', params, version: '1.0' });
      await new Promise((resolve) => setTimeout(resolve, 10));
      agent.release();
      return taskOf(await pending).id;
    };
    const a = await run(send('m-7'));
    const b = await run(send('m-7', { parts: [{ text: 'another message' }] }));
    expect(b).not.toBe(a);
    expect(agent.runs).toBe(2);
    // The other message's retry is its repeat, and the first message's retry still is the first's.
    expect(await run(send('m-7', { parts: [{ text: 'another message' }] }))).toBe(b);
    expect(await run(send('m-7'))).toBe(a);
    expect(agent.runs).toBe(2);
    // Another contextId, or another configuration, is another message too.
    expect(await run(send('m-7', { contextId: 'ctx-other' }))).not.toBe(a);
    expect(await run({ ...send('m-7'), configuration: { historyLength: 1 } })).not.toBe(a);
    expect(agent.runs).toBe(4);
    await server.close();
  });

  it('the fingerprint is SHA-256 of canonical JSON', async () => {
    for (const size of [0, 1, 55, 56, 63, 64, 65, 1000]) {
      const bytes = new Uint8Array(size).map((_, i) => (i * 7 + size) & 0xff);
      expect(Buffer.from(sha256(bytes)).toString('hex')).toBe(createHash('sha256').update(bytes).digest('hex'));
    }
  });

  it('on Node the fingerprint is hashed natively (crypto.hash), not by the plain-JS digest', () => {
    expect(typeof (process as { getBuiltinModule?: unknown }).getBuiltinModule).toBe('function');
    expect(sha256Base64url).not.toBe(plainSha256Base64url);
  });

  it('the native digest and the plain-JS one agree, for ASCII, multi-byte text and block boundaries', () => {
    const texts = ['', 'a', 'héllo ✓ 𝄞', 'x'.repeat(55), 'y'.repeat(56), 'z'.repeat(64), '{"k":"v"}'.repeat(200)];
    for (const text of texts) {
      expect(sha256Base64url(text)).toBe(plainSha256Base64url(text));
      expect(plainSha256Base64url(text)).toBe(Buffer.from(createHash('sha256').update(text, 'utf8').digest()).toString('base64url'));
    }
  });

  it('a request keeps its fingerprint across releases (stores hold fingerprints a previous release wrote)', () => {
    // Values written by the two-pass implementation of the release before: a stored key must still match.
    const plain = { message: { messageId: 'x', role: 'ROLE_USER', parts: [{ text: 'hello' }] } } as SendMessageRequest;
    const nested = {
      message: {
        messageId: 'y',
        role: 'ROLE_USER',
        contextId: 'c-1',
        taskId: 't-1',
        parts: [{ text: 'héllo ✓ 𝄞' }, { data: { z: 1, a: [{}, [], null, { b: undefined }], e: {}, f: { g: [] } } }],
        metadata: { k: { n: {} }, list: [[], {}], s: 'v' },
        extensions: [],
      },
      configuration: { historyLength: 2, acceptedOutputModes: [], returnImmediately: false },
    } as unknown as SendMessageRequest;
    expect(sendFingerprint(plain)).toBe('-B0kap-X60GivT94DzIvyLkFzfvWvyH5VVBQiwQp1to');
    expect(sendFingerprint(nested)).toBe('vb-5MI2tU0Op0ncihN8s-vAOeN3mvTH6LNy3_9GdqRQ');
  });

  it('the fingerprint ignores key order and what a binding may leave out, not the content', async () => {
    const base = send('m-1', { contextId: 'c', metadata: { a: 1, b: [1, 2] } });
    const same: SendMessageRequest = {
      message: {
        metadata: { b: [1, 2], a: 1 },
        contextId: 'c',
        parts: [{ text: 'hi' }],
        role: 'ROLE_USER',
        messageId: 'other-id',
        extensions: [],
      },
      configuration: {},
    };
    expect(sendFingerprint(same)).toBe(sendFingerprint(base));
    expect(sendFingerprint(send('m-1', { metadata: { a: 1, b: [2, 1] }, contextId: 'c' }))).not.toBe(sendFingerprint(base));
    expect(sendFingerprint(send('m-1', { taskId: 't-1' }))).not.toBe(sendFingerprint(send('m-1')));
  });

  it('a send refused before its task existed gives its key back, so a retry runs', async () => {
    let refuse = true;
    const agent = heldExecutor();
    const server = createA2AServer({
      card: testCard(),
      executor: agent.executor,
      governance: {
        admit: async () => {
          if (refuse) throw new Error('not now');
          return {
            context: { traceId: 't', depth: 0, rootAgentId: 'a', visitedAgents: ['a'] },
            signal: new AbortController().signal,
            meterTokens() {},
            finish: async () => undefined,
          };
        },
        readTaskContext: () => ({ ok: true, context: undefined }),
      },
    });
    const refused = await server.handle({ method: 'SendMessage', params: send('m-9'), version: '1.0' });
    expect(refused.kind).toBe('error');
    refuse = false;
    const retried = server.handle({ method: 'SendMessage', params: send('m-9'), version: '1.0' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    agent.release();
    expect(taskOf(await retried).status.state).toBe('TASK_STATE_COMPLETED');
    expect(agent.runs).toBe(1);
    await server.close();
  });
});

describe('InMemoryTaskStore send keys', () => {
  const key = { tenant: '', owner: 'alice', messageId: 'm-1', fingerprint: 'f' };

  it('claims once, expires after the TTL and keeps at most maxIdempotencyKeys', async () => {
    let now = 0;
    const store = new InMemoryTaskStore({ idempotencyTtlMs: 1000, maxIdempotencyKeys: 2, now: () => now });
    expect(await store.claimSendKey(key, 't-1')).toBeUndefined();
    expect(await store.claimSendKey(key, 't-2')).toBe('t-1');
    now = 1001;
    expect(await store.claimSendKey(key, 't-3')).toBeUndefined();
    await store.claimSendKey({ ...key, messageId: 'm-2' }, 't-4');
    await store.claimSendKey({ ...key, messageId: 'm-3' }, 't-5');
    // m-1 was the oldest of three: forgotten.
    expect(await store.claimSendKey(key, 't-6')).toBeUndefined();
  });

  it('at the cap forgets the oldest key still held: released and re-claimed keys count from their new claim', async () => {
    const store = new InMemoryTaskStore({ maxIdempotencyKeys: 3 });
    const k = (messageId: string) => ({ ...key, messageId });
    for (const id of ['a', 'b', 'c']) await store.claimSendKey(k(id), `t-${id}`);
    await store.releaseSendKey(k('b'), 't-b');
    await store.claimSendKey(k('d'), 't-d');
    // a, c, d held: claiming e forgets a (b was released, not forgotten twice).
    await store.claimSendKey(k('e'), 't-e');
    expect(await store.claimSendKey(k('c'), 't-x')).toBe('t-c');
    // b claimed again is the newest: f forgets c, then d, before b.
    expect(await store.claimSendKey(k('b'), 't-b2')).toBeUndefined();
    expect(await store.claimSendKey(k('d'), 't-x')).toBe('t-d');
    expect(await store.claimSendKey(k('e'), 't-x')).toBe('t-e');
    expect(await store.claimSendKey(k('b'), 't-x')).toBe('t-b2');
    // a was forgotten: claiming it again succeeds and forgets d, the oldest held.
    expect(await store.claimSendKey(k('a'), 't-a2')).toBeUndefined();
    expect(await store.claimSendKey(k('d'), 't-d2')).toBeUndefined();
  });

  it('keeps claim order across many claims and releases at the cap', async () => {
    const store = new InMemoryTaskStore({ maxIdempotencyKeys: 100 });
    const k = (n: number) => ({ ...key, messageId: `m-${n}` });
    for (let n = 0; n < 5000; n++) {
      expect(await store.claimSendKey(k(n), `t-${n}`)).toBeUndefined();
      // Every other claim is given back (a send that failed to start).
      if (n % 2 === 1) await store.releaseSendKey(k(n), `t-${n}`);
    }
    // Each released claim at the cap forgot one even key first: the 99 newest, from 4802 on, are held.
    expect(await store.claimSendKey(k(4802), 'again')).toBe('t-4802');
    expect(await store.claimSendKey(k(4998), 'again')).toBe('t-4998');
    expect(await store.claimSendKey(k(4800), 't-4800b')).toBeUndefined();
    // At the cap again: a new claim forgets 4802, the oldest held, and the next one 4804.
    expect(await store.claimSendKey(k(9999), 't-new')).toBeUndefined();
    expect(await store.claimSendKey(k(4802), 't-4802b')).toBeUndefined();
    expect(await store.claimSendKey(k(4806), 'again')).toBe('t-4806');
    expect(await store.claimSendKey(k(4800), 'again')).toBe('t-4800b');
  });

  it('release forgets a key only while it still names that task', async () => {
    const store = new InMemoryTaskStore();
    await store.claimSendKey(key, 't-1');
    await store.releaseSendKey(key, 't-other');
    expect(await store.claimSendKey(key, 't-2')).toBe('t-1');
    await store.releaseSendKey(key, 't-1');
    expect(await store.claimSendKey(key, 't-2')).toBeUndefined();
  });
});
