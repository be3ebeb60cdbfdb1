import { describe, expect, it } from 'vitest';
import { Governor, linkAbortSignals, neverAbortedSignal, TaskPolicyEngine } from '../src/index.js';

describe('linkAbortSignals', () => {
  it('gives the shared never-aborting signal for no live source', () => {
    const linked = linkAbortSignals([undefined, neverAbortedSignal()]);
    expect(linked.signal).toBe(neverAbortedSignal());
    expect(linked.signal.aborted).toBe(false);
  });

  it('passes a single source through unchanged', () => {
    const controller = new AbortController();
    expect(linkAbortSignals([controller.signal, undefined]).signal).toBe(controller.signal);
  });

  it('aborts with the reason of whichever source aborts first', () => {
    const a = new AbortController();
    const b = new AbortController();
    const linked = linkAbortSignals([a.signal, b.signal]);
    b.abort(new Error('policy'));
    a.abort(new Error('caller'));
    expect((linked.signal.reason as Error).message).toBe('policy');
  });

  it('is aborted at once when a source already is', () => {
    const a = new AbortController();
    a.abort('done');
    expect(linkAbortSignals([a.signal, new AbortController().signal]).signal.reason).toBe('done');
  });

  it('stops following its sources after unlink', () => {
    const a = new AbortController();
    const b = new AbortController();
    const linked = linkAbortSignals([a.signal, b.signal]);
    linked.unlink();
    a.abort('late');
    expect(linked.signal.aborted).toBe(false);
  });
});

describe('GovernedTask.signalNeverAborts', () => {
  const admit = (governor: Governor, signal?: AbortSignal) => governor.admit({ caller: 'A', skill: 'echo', ...(signal ? { signal } : {}) });

  it('is true only when the task holds the shared never-aborting signal', async () => {
    const plain = await admit(new Governor({ selfAgentId: 'B' }));
    expect(plain.signal).toBe(neverAbortedSignal());
    expect(plain.signalNeverAborts).toBe(true);
    await plain.finish({});

    const caller = new AbortController();
    const withCaller = await admit(new Governor({ selfAgentId: 'B' }), caller.signal);
    expect(withCaller.signalNeverAborts).toBe(false);
    await withCaller.finish({});

    // A mid-task limit gives the task a signal of its own, which a runner must listen to.
    const limited = await admit(new Governor({ selfAgentId: 'B', policy: new TaskPolicyEngine({ default: { maxTokens: 5 } }) }));
    expect(limited.signalNeverAborts).toBe(false);
    limited.meterTokens(6);
    expect(limited.signal.aborted).toBe(true);
    await limited.finish({});
  });
});
