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
    const a = await local.execute({ request: request(), context, signal: new AbortController().signal, onUpdate: (u) => seenLocal.push(u) });
    const b = await remote.execute({ request: request(), context, signal: new AbortController().signal, onUpdate: (u) => seenRemote.push(u) });
    expect(a).toEqual(b);
    expect(seenLocal).toEqual(seenRemote);
    expect(a.updates).toHaveLength(STREAM.length);
    expect(a.final.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(a.final.task?.artifacts?.[0]?.parts).toEqual([{ text: 'part one, ' }, { text: 'part two' }]);
  });

  it('a message-only stream gives { message }; an empty stream is InvalidAgentResponseError', async () => {
    const message = { messageId: 'r-1', role: 'ROLE_AGENT' as const, parts: [{ text: 'hi' }] };
    const outcome = await createLocalExecutor(replaySource([{ message }])).execute({ request: request(), context, signal: new AbortController().signal });
    expect(outcome.final).toEqual({ message });
    await expect(createLocalExecutor(replaySource([])).execute({ request: request(), context, signal: new AbortController().signal })).rejects.toSatisfy(
      (error: unknown) => InvalidAgentResponseError.isInstance(error),
    );
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

  it('measureUsage reports usage', async () => {
    const executor = createStreamingExecutor('remote', replaySource(STREAM), { measureUsage: (_final, updates) => ({ tokens: updates.length * 10 }) });
    const outcome = await executor.execute({ request: request(), context, signal: new AbortController().signal });
    expect(outcome.usage).toEqual({ tokens: 50 });
  });
});
