import { describe, expect, it } from 'vitest';
import { type StreamResponse, type Task, applyStreamResponse } from '../src/index.js';

const base: Task = {
  id: 't-1',
  contextId: 'c-1',
  status: { state: 'TASK_STATE_WORKING' },
  metadata: { a: 1 },
};

describe('applyStreamResponse (spec §3.2.3 stream aggregation)', () => {
  it('a task event replaces the task', () => {
    const next: Task = { id: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_SUBMITTED' } };
    expect(applyStreamResponse(base, { task: next })).toBe(next);
    expect(applyStreamResponse(undefined, { task: next })).toBe(next);
  });

  it('a message event leaves the task unchanged', () => {
    const event: StreamResponse = { message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } };
    expect(applyStreamResponse(base, event)).toBe(base);
    expect(applyStreamResponse(undefined, event)).toBeUndefined();
  });

  it('a status update replaces the status and merges metadata without mutating the input', () => {
    const before = structuredClone(base);
    const next = applyStreamResponse(base, {
      statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_COMPLETED' }, metadata: { b: 2 } },
    });
    expect(next).toEqual({ ...base, status: { state: 'TASK_STATE_COMPLETED' }, metadata: { a: 1, b: 2 } });
    expect(base).toEqual(before);
    const noMeta = applyStreamResponse(base, {
      statusUpdate: { taskId: 't-1', contextId: 'c-1', status: { state: 'TASK_STATE_FAILED' } },
    });
    expect(noMeta?.metadata).toEqual({ a: 1 });
  });

  it('artifact updates insert by id, replace without append, and concatenate parts with append', () => {
    let task = applyStreamResponse(base, {
      artifactUpdate: { taskId: 't-1', contextId: 'c-1', artifact: { artifactId: 'a', parts: [{ text: 'one ' }] } },
    });
    task = applyStreamResponse(task, {
      artifactUpdate: { taskId: 't-1', contextId: 'c-1', artifact: { artifactId: 'b', parts: [{ text: 'other' }] } },
    });
    task = applyStreamResponse(task, {
      artifactUpdate: {
        taskId: 't-1',
        contextId: 'c-1',
        append: true,
        lastChunk: true,
        artifact: { artifactId: 'a', name: 'A', parts: [{ text: 'two' }], metadata: { x: 1 } },
      },
    });
    expect(task?.artifacts).toEqual([
      { artifactId: 'a', name: 'A', parts: [{ text: 'one ' }, { text: 'two' }], metadata: { x: 1 } },
      { artifactId: 'b', parts: [{ text: 'other' }] },
    ]);
    task = applyStreamResponse(task, {
      artifactUpdate: { taskId: 't-1', contextId: 'c-1', artifact: { artifactId: 'a', parts: [{ text: 'new' }] } },
    });
    expect(task?.artifacts?.[0]).toEqual({ artifactId: 'a', parts: [{ text: 'new' }] });
    expect(base.artifacts).toBeUndefined();
  });

  it('append onto an unknown artifact inserts it', () => {
    const task = applyStreamResponse(base, {
      artifactUpdate: { taskId: 't-1', contextId: 'c-1', append: true, artifact: { artifactId: 'z', parts: [{ text: 'z' }] } },
    });
    expect(task?.artifacts).toEqual([{ artifactId: 'z', parts: [{ text: 'z' }] }]);
  });

  it('append merges metadata and extensions of the artifact', () => {
    const start: Task = {
      ...base,
      artifacts: [{ artifactId: 'a', parts: [{ text: '1' }], metadata: { k: 1 }, extensions: ['e1'] }],
    };
    const task = applyStreamResponse(start, {
      artifactUpdate: {
        taskId: 't-1',
        contextId: 'c-1',
        append: true,
        artifact: { artifactId: 'a', parts: [{ data: { n: 2 } }], metadata: { j: 2 }, extensions: ['e1', 'e2'] },
      },
    });
    expect(task?.artifacts?.[0]).toEqual({
      artifactId: 'a',
      parts: [{ text: '1' }, { data: { n: 2 } }],
      metadata: { k: 1, j: 2 },
      extensions: ['e1', 'e2'],
    });
  });

  it('updates before any task event build a minimal task', () => {
    const fromStatus = applyStreamResponse(undefined, {
      statusUpdate: { taskId: 't-9', contextId: 'c-9', status: { state: 'TASK_STATE_WORKING' } },
    });
    expect(fromStatus).toEqual({ id: 't-9', contextId: 'c-9', status: { state: 'TASK_STATE_WORKING' } });
    const fromArtifact = applyStreamResponse(undefined, {
      artifactUpdate: { taskId: 't-9', contextId: 'c-9', artifact: { artifactId: 'a', parts: [{ text: 'x' }] } },
    });
    expect(fromArtifact).toEqual({
      id: 't-9',
      contextId: 'c-9',
      status: { state: 'TASK_STATE_SUBMITTED' },
      artifacts: [{ artifactId: 'a', parts: [{ text: 'x' }] }],
    });
  });

  it('events for another task are ignored', () => {
    expect(applyStreamResponse(base, { statusUpdate: { taskId: 'other', contextId: 'c', status: { state: 'TASK_STATE_FAILED' } } })).toBe(
      base,
    );
    expect(
      applyStreamResponse(base, {
        artifactUpdate: { taskId: 'other', contextId: 'c', artifact: { artifactId: 'a', parts: [{ text: 'x' }] } },
      }),
    ).toBe(base);
  });
});
