import { describe, expect, it } from 'vitest';
import { type BudgetQueueDecision, type BudgetTicket, createBudgetQueue } from '../src/index.js';

// The waiting room both capped ledgers share (in memory: synchronous attempts; Redis: asynchronous
// ones). The in-memory ledger's tests cover the synchronous path through the ledger; these cover
// what only an asynchronous attempt can meet.

const ticket = (id: number): BudgetTicket => ({ id, acquiredAt: 0 });
const refused = (error: unknown, retryAfterMs: number | undefined, wakeMs = retryAfterMs): BudgetQueueDecision => ({
  ok: false,
  error: () => error,
  retryAfterMs,
  wakeMs,
});

/** An attempt the test answers by hand: each call waits until `answer` is called. */
function manualAttempts() {
  const pending: Array<(decision: BudgetQueueDecision | Error) => void> = [];
  return {
    pending,
    attempt: () =>
      new Promise<BudgetQueueDecision>((resolve, reject) => {
        pending.push((decision) => (decision instanceof Error ? reject(decision) : resolve(decision)));
      }),
    answer(decision: BudgetQueueDecision | Error) {
      const next = pending.shift();
      if (next === undefined) throw new Error('no attempt is waiting');
      next(decision);
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('createBudgetQueue with an asynchronous attempt', () => {
  it('grants heads in order, one attempt at a time', async () => {
    const attempts = manualAttempts();
    const queue = createBudgetQueue({ attempt: attempts.attempt });
    const first = queue.enqueue({ caller: 'a' }, undefined);
    const second = queue.enqueue({ caller: 'b' }, undefined);
    queue.pump();
    queue.pump(); // already pumping: no second attempt
    expect(attempts.pending).toHaveLength(1);
    attempts.answer({ ok: true, ticket: ticket(1) });
    await expect(first).resolves.toEqual(ticket(1));
    await settle();
    expect(attempts.pending).toHaveLength(1);
    attempts.answer({ ok: true, ticket: ticket(2) });
    await expect(second).resolves.toEqual(ticket(2));
    expect(queue.length).toBe(0);
  });

  it('gives back a ticket granted to a waiter that aborted while the attempt ran', async () => {
    const attempts = manualAttempts();
    const givenBack: BudgetTicket[] = [];
    const queue = createBudgetQueue({ attempt: attempts.attempt, giveBack: (t) => givenBack.push(t) });
    const controller = new AbortController();
    const waiting = queue.enqueue({}, controller.signal);
    queue.pump();
    controller.abort(new Error('caller left'));
    await expect(waiting).rejects.toThrow('caller left');
    attempts.answer({ ok: true, ticket: ticket(7) });
    await settle();
    expect(givenBack).toEqual([ticket(7)]);
    expect(queue.length).toBe(0);
  });

  it('rejects the head with the failure of its attempt, sheds a head that can never fit, and goes on', async () => {
    const attempts = manualAttempts();
    const queue = createBudgetQueue({ attempt: attempts.attempt });
    const unreachable = queue.enqueue({}, undefined);
    const tooBig = queue.enqueue({}, undefined);
    const fits = queue.enqueue({}, undefined);
    queue.pump();
    attempts.answer(new Error('store unreachable'));
    await expect(unreachable).rejects.toThrow('store unreachable');
    await settle();
    const never = new Error('estimate above the cap');
    attempts.answer(refused(never, undefined));
    await expect(tooBig).rejects.toBe(never);
    await settle();
    attempts.answer({ ok: true, ticket: ticket(3) });
    await expect(fits).resolves.toEqual(ticket(3));
  });

  it('retries a refused head when its wake-up comes, and rejects every waiter on close', async () => {
    const attempts = manualAttempts();
    const queue = createBudgetQueue({ attempt: attempts.attempt, pollMs: 5, unref: true });
    const head = queue.enqueue({}, undefined, refused(new Error('full'), 60_000));
    // pollMs bounds the wait: the head is attempted again within 5 ms, not after a minute.
    for (let i = 0; i < 200 && attempts.pending.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(attempts.pending).toHaveLength(1);
    attempts.answer(refused(new Error('still full'), 60_000));
    await settle();
    queue.close(new TypeError('closed'));
    await expect(head).rejects.toThrow('closed');
    expect(queue.length).toBe(0);
  });
});
