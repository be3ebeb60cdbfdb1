import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ExecutionSignal } from '../src/core/execution-signal.js';

describe("ExecutionSignal (the executor's lazily made AbortSignal)", () => {
  it('follows its sources only once read, and stops following on unfollow()', () => {
    const governor = new AbortController();
    const execution = new ExecutionSignal(governor.signal, undefined);
    expect(getEventListeners(governor.signal, 'abort')).toHaveLength(0);
    const signal = execution.signal;
    expect(execution.signal).toBe(signal);
    expect(getEventListeners(governor.signal, 'abort')).toHaveLength(1);
    execution.unfollow();
    expect(getEventListeners(governor.signal, 'abort')).toHaveLength(0);
    governor.abort(new Error('late'));
    expect(signal.aborted).toBe(false);
  });

  it("aborts with the source's reason, whether the source aborts before or after the first read", () => {
    const before = new AbortController();
    const early = new ExecutionSignal(before.signal, undefined);
    before.abort('budget');
    expect(early.signal.aborted).toBe(true);
    expect(early.signal.reason).toBe('budget');

    const after = new AbortController();
    const late = new ExecutionSignal(after.signal, undefined);
    const signal = late.signal;
    after.abort('duration');
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('duration');
    expect(getEventListeners(after.signal, 'abort')).toHaveLength(0);
  });

  it('abort() before the first read leaves the signal aborted with that reason; the first reason wins', () => {
    const execution = new ExecutionSignal(undefined, undefined);
    execution.abort('canceled');
    execution.abort('closed');
    expect(execution.signal.aborted).toBe(true);
    expect(execution.signal.reason).toBe('canceled');
    const read = new ExecutionSignal(undefined, undefined);
    const signal = read.signal;
    read.abort('canceled');
    read.abort('closed');
    expect(signal.reason).toBe('canceled');
  });

  it('a signal first read after the task ended follows nothing (no listener left on a long-lived source)', () => {
    const shared = new AbortController();
    const execution = new ExecutionSignal(shared.signal, undefined);
    execution.unfollow();
    expect(execution.signal.aborted).toBe(false);
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
  });

  it('follows two sources; whichever aborts first gives the reason, and both lose their listener at the end', () => {
    const governor = new AbortController();
    const caller = new AbortController();
    const execution = new ExecutionSignal(governor.signal, caller.signal);
    const signal = execution.signal;
    expect(getEventListeners(governor.signal, 'abort')).toHaveLength(1);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
    caller.abort('caller left');
    governor.abort('budget');
    expect(signal.reason).toBe('caller left');
    execution.unfollow();
    expect(getEventListeners(governor.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });
});
