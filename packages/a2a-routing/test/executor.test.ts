import { createRootContext } from '@a2aplane/a2a-governance';
import { InvalidAgentResponseError, type StreamResponse } from '@a2aplane/a2a-types';
import { describe, expect, it } from 'vitest';
import { type MessageStreamSource, createLocalExecutor, createStreamingExecutor } from '../src/index.js';
import { STREAM, replaySource, request } from './fixtures.js';

const context = createRootContext({ rootAgentId: 'agent-a' });

describe('executors (ADR-159 "Remote ≡ local": same outcome for the same stream)', () => {
  it('local and remote executors yield identical outcomes and updates', async () => {
    const seenLocal: StreamResponse[] = [];
    const seenRemote: StreamResponse[] = [];
    const local = createLocalExecutor(replaySource(STREAM));
    const remote = createStreamingExecutor('remote', replaySource(STREAM));
    expect(local.kind).toBe('local');
    expect(remote.kind).toBe('remote');
    const a = await local.execute({
      request: request(),
      context,
      signal: new AbortController().signal,
      onUpdate: (u) => seenLocal.push(u),
    });
    const b = await remote.execute({
      request: request(),
      context,
      signal: new AbortController().signal,
      onUpdate: (u) => seenRemote.push(u),
    });
    expect(a).toEqual(b);
    expect(seenLocal).toEqual(seenRemote);
    expect(a.updates).toHaveLength(STREAM.length);
    expect(a.final.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(a.final.task?.artifacts?.[0]?.parts).toEqual([{ text: 'part one, ' }, { text: 'part two' }]);
  });

  it('a message-only stream gives { message }; an empty stream is InvalidAgentResponseError', async () => {
    const message = { messageId: 'r-1', role: 'ROLE_AGENT' as const, parts: [{ text: 'hi' }] };
    const outcome = await createLocalExecutor(replaySource([{ message }])).execute({
      request: request(),
      context,
      signal: new AbortController().signal,
    });
    expect(outcome.final).toEqual({ message });
    await expect(
      createLocalExecutor(replaySource([])).execute({ request: request(), context, signal: new AbortController().signal }),
    ).rejects.toSatisfy((error: unknown) => InvalidAgentResponseError.isInstance(error));
  });

  it('abort stops even a source that ignores the signal, with the signal reason', async () => {
    const stuck: MessageStreamSource = {
      async *stream() {
        yield STREAM[0]!;
        await new Promise(() => {});
      },
    };
    const controller = new AbortController();
    const reason = new Error('caller went away');
    const running = createLocalExecutor(stuck).execute({
      request: request(),
      context,
      signal: controller.signal,
      onUpdate: () => controller.abort(reason),
    });
    await expect(running).rejects.toBe(reason);
  });

  it('abort cancels the task through the source (local or remote alike) before rejecting', async () => {
    for (const kind of ['local', 'remote'] as const) {
      const canceled: Array<{ id: string; tenant?: string }> = [];
      let streamSignal: AbortSignal | undefined;
      const source: MessageStreamSource = {
        async *stream(_request, options) {
          streamSignal = options.signal;
          yield STREAM[0]!;
          yield STREAM[1]!;
          await new Promise(() => {});
        },
        async cancel(params) {
          // The source's stream is still open while CancelTask runs.
          expect(streamSignal?.aborted).toBe(false);
          canceled.push(params);
        },
      };
      const controller = new AbortController();
      const reason = new Error('caller went away');
      const running = createStreamingExecutor(kind, source).execute({
        request: { ...request(), tenant: 'acme' },
        context,
        signal: controller.signal,
        onUpdate: (update) => {
          if (update.statusUpdate) controller.abort(reason);
        },
      });
      await expect(running).rejects.toBe(reason);
      expect(canceled).toEqual([{ id: 't-1', tenant: 'acme' }]);
      expect(streamSignal?.aborted).toBe(true);
    }
  });

  it('an abort before any event waits (bounded) for the task id, then cancels; a silent source gives up at cancelTimeoutMs', async () => {
    const canceled: string[] = [];
    let release: () => void = () => undefined;
    const late: MessageStreamSource = {
      async *stream() {
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        yield STREAM[0]!;
      },
      async cancel(params) {
        canceled.push(params.id);
      },
    };
    const controller = new AbortController();
    const running = createLocalExecutor(late).execute({ request: request(), context, signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    release();
    await expect(running).rejects.toMatchObject({ name: 'AbortError' });
    expect(canceled).toEqual(['t-1']);

    const silent: MessageStreamSource = {
      async *stream() {
        await new Promise(() => {});
      },
      async cancel(params) {
        canceled.push(params.id);
      },
    };
    const second = new AbortController();
    const waiting = createLocalExecutor(silent, { cancelTimeoutMs: 10 }).execute({ request: request(), context, signal: second.signal });
    second.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    expect(canceled).toEqual(['t-1']);
  });

  it('writes the lineage into the request it streams, so local and remote tasks carry the same message metadata', async () => {
    const seen: unknown[] = [];
    const source: MessageStreamSource = {
      async *stream(sent) {
        seen.push(sent.message.metadata);
        yield* STREAM;
      },
    };
    await createLocalExecutor(source).execute({ request: request(), context, signal: new AbortController().signal });
    expect(seen[0]).toMatchObject({ keep: 'me', ruvector: { context: { trace_id: context.traceId, depth: 0, root_agent_id: 'agent-a' } } });
  });

  it('measureUsage reports usage', async () => {
    const executor = createStreamingExecutor('remote', replaySource(STREAM), {
      measureUsage: (_final, updates) => ({ tokens: updates.length * 10 }),
    });
    const outcome = await executor.execute({ request: request(), context, signal: new AbortController().signal });
    expect(outcome.usage).toEqual({ tokens: 50 });
  });
});
