import { describe, expect, it } from 'vitest';
import { createA2AServer, createTaskUpdater, type StreamEvent } from '../src/index.js';
import { createGate, echoExecutor, testCard, userMessage } from './helpers.js';

describe('binding-neutral core', () => {
  it('handle() validates params and returns typed errors, never throws', async () => {
    const server = createA2AServer({ card: testCard(), executor: echoExecutor });
    const unknown = await server.handle({ method: 'Nope', params: {} });
    expect(unknown.kind === 'error' && unknown.error.code).toBe(-32601);
    const invalid = await server.handle({ method: 'GetTask', params: { id: '' }, version: '1.0' });
    expect(invalid.kind === 'error' && invalid.error.fieldViolations.map((v) => v.field)).toEqual(['id']);
    const badAuth = createA2AServer({
      card: testCard(),
      executor: echoExecutor,
      authenticate: async () => {
        throw new Error('database down: password=hunter2');
      },
    });
    const result = await badAuth.handle({
      method: 'ListTasks',
      params: {},
      auth: { headers: {}, query: new URLSearchParams(), method: 'POST' },
    });
    expect(result.kind === 'error' && result.error.reason).toBe('UNAUTHENTICATED');
    expect(result.kind === 'error' && result.error.message).not.toContain('hunter2');
    await server.close();
  });

  it('the executor sees the whole user message with the task and context ids filled in', async () => {
    const seen: unknown[] = [];
    const server = createA2AServer({
      card: testCard(),
      executor: {
        async execute(context, events) {
          seen.push(context.message);
          createTaskUpdater(context, events).complete('ok');
        },
      },
    });
    const message = {
      messageId: 'm-ids',
      role: 'ROLE_USER',
      parts: [{ text: 'x' }],
      metadata: { trace: 'kept' },
      extensions: ['urn:x'],
      referenceTaskIds: ['t-old'],
    };
    const sent = await server.handle({ method: 'SendMessage', params: { message }, version: '1.0' });
    const task = (sent as { result: { task: { id: string; contextId: string } } }).result.task;
    expect(seen).toHaveLength(1);
    expect(seen[0]).toEqual({ ...message, taskId: task.id, contextId: task.contextId });
    expect(Object.keys(seen[0] as object)).toEqual([...Object.keys(message), 'taskId', 'contextId']);
    expect(message).not.toHaveProperty('taskId');
    await server.close();
  });

  it('a principal given directly owns its tasks', async () => {
    const server = createA2AServer({ card: testCard(), executor: echoExecutor });
    const alice = { id: 'alice', scheme: 'test' };
    const sent = await server.handle({ method: 'SendMessage', params: { message: userMessage('x') }, principal: alice, version: '1.0' });
    expect(sent.kind).toBe('result');
    const id = ((sent as { result: { task: { id: string } } }).result.task as { id: string }).id;
    expect((await server.handle({ method: 'GetTask', params: { id }, principal: alice })).kind).toBe('result');
    const other = await server.handle({ method: 'GetTask', params: { id }, principal: { id: 'bob', scheme: 'test' } });
    expect(other.kind === 'error' && other.error.reason).toBe('TASK_NOT_FOUND');
    await server.close();
  });

  it('CancelTask calls executor.cancel and aborts the signal; events after the terminal state are dropped', async () => {
    const gate = createGate();
    let aborted = false;
    const server = createA2AServer({
      card: testCard(),
      executor: {
        async execute(context, events) {
          const t = createTaskUpdater(context, events);
          t.submit();
          context.signal.addEventListener('abort', () => {
            aborted = true;
          });
          await gate.wait;
          t.complete('too late');
        },
        async cancel(context, events) {
          createTaskUpdater(context, events).cancel('stopped');
        },
      },
    });
    const sent = await server.handle({
      method: 'SendMessage',
      params: { message: userMessage('x'), configuration: { returnImmediately: true } },
    });
    const id = ((sent as { result: { task: { id: string } } }).result.task as { id: string }).id;
    const canceled = await server.handle({ method: 'CancelTask', params: { id } });
    expect(canceled.kind === 'result' && (canceled.result as { status: { state: string } }).status.state).toBe('TASK_STATE_CANCELED');
    expect(aborted).toBe(true);
    gate.open();
    await new Promise((r) => setTimeout(r, 20));
    const got = await server.handle({ method: 'GetTask', params: { id } });
    expect(got.kind === 'result' && (got.result as { status: { state: string } }).status.state).toBe('TASK_STATE_CANCELED');
    await server.close();
  });

  it('SubscribeToTask over the core starts with the current Task and follows live events', async () => {
    const gate = createGate();
    const server = createA2AServer({
      card: testCard(),
      executor: {
        async execute(context, events) {
          const t = createTaskUpdater(context, events);
          t.submit();
          await gate.wait;
          t.complete();
        },
      },
    });
    const sent = await server.handle({
      method: 'SendMessage',
      params: { message: userMessage('x'), configuration: { returnImmediately: true } },
    });
    const id = ((sent as { result: { task: { id: string } } }).result.task as { id: string }).id;
    const sub = await server.handle({ method: 'SubscribeToTask', params: { id } });
    expect(sub.kind).toBe('stream');
    const events: StreamEvent[] = [];
    gate.open();
    for await (const event of (sub as { events: AsyncIterable<StreamEvent> }).events) events.push(event);
    expect(Object.keys(events[0]?.data ?? {})).toEqual(['task']);
    expect(events.at(-1)?.data.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(Number(events.at(-1)?.id)).toBeGreaterThan(Number(events[0]?.id));
    await server.close();
  });

  it('a blocking SendMessage whose caller goes away releases its listener; the task goes on', async () => {
    const gate = createGate();
    const server = createA2AServer({
      card: testCard(),
      executor: {
        async execute(context, events) {
          const t = createTaskUpdater(context, events);
          t.submit();
          await gate.wait;
          t.complete();
        },
      },
    });
    const abort = new AbortController();
    const pending = server.handle({ method: 'SendMessage', params: { message: userMessage('x') }, signal: abort.signal });
    await new Promise((r) => setTimeout(r, 20));
    expect(server.stats().subscribers).toBe(1);
    abort.abort();
    expect((await pending).kind).toBe('error');
    expect(server.stats().subscribers).toBe(0);
    gate.open();
    for (let i = 0; i < 50 && server.stats().liveTasks > 0; i++) await new Promise((r) => setTimeout(r, 5));
    const list = await server.handle({ method: 'ListTasks', params: {} });
    expect(list.kind === 'result' && (list.result as { tasks: { status: { state: string } }[] }).tasks[0]?.status.state).toBe(
      'TASK_STATE_COMPLETED',
    );
    await server.close();
  });

  it('InvalidAgentResponse: an event for another task id or a second Task with another id fails the task', async () => {
    const variants = [
      (taskId: string) => ({ taskId: `${taskId}-other`, contextId: 'c', status: { state: 'TASK_STATE_WORKING' as const } }),
      (taskId: string) => ({ id: `${taskId}-second`, contextId: 'c', status: { state: 'TASK_STATE_WORKING' as const } }),
      () => ({ nonsense: true }) as never,
    ];
    for (const make of variants) {
      const server = createA2AServer({
        card: testCard(),
        executor: {
          async execute(context, events) {
            createTaskUpdater(context, events).submit();
            events.publish(make(context.taskId));
            createTaskUpdater(context, events).complete();
          },
        },
      });
      const sent = await server.handle({ method: 'SendMessage', params: { message: userMessage('x') } });
      expect(sent.kind === 'result' && (sent.result as { task: { status: { state: string } } }).task.status.state).toBe(
        'TASK_STATE_FAILED',
      );
      await server.close();
    }
  });

  it('failed requests leave no live task runtimes behind', async () => {
    const server = createA2AServer({ card: testCard(), executor: echoExecutor });
    const sent = await server.handle({ method: 'SendMessage', params: { message: userMessage('x') } });
    const id = ((sent as { result: { task: { id: string } } }).result.task as { id: string }).id;
    expect((await server.handle({ method: 'SubscribeToTask', params: { id } })).kind).toBe('error');
    expect((await server.handle({ method: 'SendMessage', params: { message: userMessage('again', { taskId: id }) } })).kind).toBe('error');
    expect(server.stats()).toEqual({ liveTasks: 0, subscribers: 0 });
    await server.close();
  });
});

describe('the executor signal', () => {
  it("aborts with the governor's reason, read before or after the governor stops the task", async () => {
    for (const readFirst of [true, false]) {
      const governor = new AbortController();
      const gate = createGate();
      let reason: unknown;
      const server = createA2AServer({
        card: testCard(),
        governance: {
          admit: async () => ({
            context: { traceId: 'c'.repeat(32), depth: 0, rootAgentId: 'self', visitedAgents: ['self'] },
            signal: governor.signal,
            meterTokens: () => undefined,
            finish: async () => undefined,
          }),
          readTaskContext: () => ({ ok: true, context: undefined }),
        },
        executor: {
          async execute(context, events) {
            const t = createTaskUpdater(context, events);
            t.submit();
            const early = readFirst ? context.signal : undefined;
            await gate.wait;
            const signal = early ?? context.signal;
            reason = signal.aborted ? signal.reason : 'not aborted';
            t.fail('stopped');
          },
        },
      });
      const sent = await server.handle({
        method: 'SendMessage',
        params: { message: userMessage('x'), configuration: { returnImmediately: true } },
      });
      expect(sent.kind).toBe('result');
      governor.abort('max duration');
      gate.open();
      for (let i = 0; i < 50 && reason === undefined; i++) await new Promise((r) => setTimeout(r, 5));
      expect(reason).toBe('max duration');
      await server.close();
    }
  });
});

describe('the executor request context', () => {
  it('carries the request as own fields; signal is a getter made on first read (pass the context on, do not spread it)', async () => {
    let seen: { keys: string[]; signalIsOwn: boolean; aborted: boolean; json: string } | undefined;
    const server = createA2AServer({
      card: testCard(),
      executor: {
        async execute(context, events) {
          seen = {
            keys: Object.keys(context).sort(),
            signalIsOwn: Object.hasOwn(context, 'signal'),
            aborted: context.signal.aborted,
            json: JSON.stringify(context),
          };
          createTaskUpdater(context, events).complete();
        },
      },
    });
    await server.handle({ method: 'SendMessage', params: { message: userMessage('x') }, version: '1.0' });
    expect(seen?.keys).toEqual(
      [
        'acceptedOutputModes',
        'contextId',
        'extensions',
        'message',
        'principal',
        'skillId',
        'task',
        'taskContext',
        'taskId',
        'tenant',
        'version',
      ].sort(),
    );
    expect(seen?.signalIsOwn).toBe(false);
    expect(seen?.aborted).toBe(false);
    expect(JSON.parse(seen?.json ?? '{}').message.parts).toEqual([{ text: 'x' }]);
    await server.close();
  });
});

describe('late subscribers after a burst of events', () => {
  it('SubscribeToTask with Last-Event-ID replays the burst from the log, then follows live events: no gap, no duplicate', async () => {
    const gate = createGate();
    const server = createA2AServer({
      card: testCard(),
      executor: {
        async execute(context, events) {
          const t = createTaskUpdater(context, events);
          // One burst: these five events share one step of the write queue.
          t.submit();
          t.startWork();
          for (let i = 0; i < 3; i++) t.addArtifact([{ text: `c${i}` }], { artifactId: 'a', append: i > 0 });
          await gate.wait;
          t.addArtifact([{ text: 'c3' }], { artifactId: 'a', append: true, lastChunk: true });
          t.complete();
        },
      },
    });
    const sent = await server.handle({
      method: 'SendMessage',
      params: { message: userMessage('x'), configuration: { returnImmediately: true } },
      version: '1.0',
    });
    const id = ((sent as { result: { task: { id: string } } }).result.task as { id: string }).id;
    const logLength = async () => (await server.eventBus.read({ tenant: '', taskId: id }))?.events.length ?? 0;
    for (let i = 0; i < 50 && (await logLength()) < 5; i++) await new Promise((r) => setTimeout(r, 2));
    const resumed = await server.handle({ method: 'SubscribeToTask', params: { id }, lastEventId: '1', version: '1.0' });
    const fresh = await server.handle({ method: 'SubscribeToTask', params: { id }, version: '1.0' });
    if (resumed.kind !== 'stream' || fresh.kind !== 'stream') throw new Error('expected streams');
    gate.open();
    const read = async (events: AsyncIterable<StreamEvent>) => {
      const out: StreamEvent[] = [];
      for await (const event of events) out.push(event);
      return out;
    };
    const [replayed, followed] = await Promise.all([read(resumed.events), read(fresh.events)]);
    expect(replayed.map((e) => Number(e.id))).toEqual([2, 3, 4, 5, 6, 7]);
    const log = (await server.eventBus.read({ tenant: '', taskId: id }))?.events ?? [];
    expect(replayed).toEqual(log.slice(1).map((e) => ({ id: e.id, data: e.event })));
    // A subscriber without Last-Event-ID starts from the whole task as of the last event, then goes on.
    expect(followed.map((e) => Number(e.id))).toEqual([5, 6, 7]);
    expect(followed[0]?.data.task?.artifacts?.[0]?.parts.map((p) => ('text' in p ? p.text : ''))).toEqual(['c0', 'c1', 'c2']);
    expect(followed.at(-1)?.data.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
    await server.close();
  });
});
