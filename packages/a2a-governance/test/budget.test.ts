import { BudgetExceededError } from '@a2aplane/a2a-types';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type BudgetLedger, type BudgetTicket, createInMemoryBudgetLedger } from '../src/index.js';

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** 200 tasks of $0.005 spread over one second: exactly $1.00. */
async function burn200(ledger: BudgetLedger): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const ticket = await ledger.acquire({ estimatedUsd: 0.005 });
    await ledger.meter(ticket, { usd: 0.005, tokens: 10 });
    vi.advanceTimersByTime(5);
  }
}

describe('GlobalBudget ledger (ADR-159 M1 test 5 budget_guard)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sheds the 201st cheap task past maxUsdPerMinute = 1.0 under shed', async () => {
    const ledger = createInMemoryBudgetLedger({ maxUsdPerMinute: 1.0, overflow: { kind: 'shed' } });
    await burn200(ledger);
    expect(ledger.snapshot().window).toEqual({ usd: 1, tokens: 2000, tasks: 200 });
    const error = await rejection(ledger.acquire({ estimatedUsd: 0.005 }));
    expect(BudgetExceededError.isInstance(error)).toBe(true);
    const budgetError = error as BudgetExceededError;
    expect(budgetError.metadata.limit).toBe('usd');
    expect(budgetError.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(budgetError.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(budgetError.httpStatus).toBe(429);
  });

  it('queues the 201st under queue and releases it when the window frees', async () => {
    const ledger = createInMemoryBudgetLedger({ maxUsdPerMinute: 1.0, overflow: { kind: 'queue', maxQueueDepth: 10 } });
    const start = Date.now();
    await burn200(ledger);
    let granted: BudgetTicket | undefined;
    const pending = ledger.acquire({ estimatedUsd: 0.005 }).then((ticket) => {
      granted = ticket;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(granted).toBeUndefined();
    expect(ledger.snapshot().queueDepth).toBe(1);
    // The first $0.005 was metered at `start` and leaves the window at start + 60 s.
    await vi.advanceTimersByTimeAsync(start + 60_000 - Date.now() - 1);
    expect(granted).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await pending;
    expect(granted?.acquiredAt).toBe(start + 60_000);
    expect(ledger.snapshot().queueDepth).toBe(0);
  });

  it('rejects with queue_full past maxQueueDepth', async () => {
    const ledger = createInMemoryBudgetLedger({ maxTasksPerMinute: 1, overflow: { kind: 'queue', maxQueueDepth: 2 } });
    await ledger.acquire({});
    const first = ledger.acquire({});
    const second = ledger.acquire({});
    const error = await rejection(ledger.acquire({}));
    expect(BudgetExceededError.isInstance(error)).toBe(true);
    expect((error as BudgetExceededError).metadata.limit).toBe('queue_full');
    expect(ledger.snapshot().queueDepth).toBe(2);
    await vi.advanceTimersByTimeAsync(60_000);
    await expect(first).resolves.toMatchObject({ acquiredAt: Date.now() });
    await vi.advanceTimersByTimeAsync(60_000);
    await expect(second).resolves.toBeDefined();
  });

  it('serves the queue in FIFO order and removes an aborted waiter', async () => {
    const ledger = createInMemoryBudgetLedger({ maxTasksPerMinute: 1, overflow: { kind: 'queue', maxQueueDepth: 5 } });
    await ledger.acquire({});
    const order: string[] = [];
    const controller = new AbortController();
    const a = ledger.acquire({}).then(() => order.push('a'));
    const b = ledger.acquire({}, controller.signal);
    const c = ledger.acquire({}).then(() => order.push('c'));
    controller.abort(new Error('caller went away'));
    await expect(b).rejects.toThrow('caller went away');
    expect(ledger.snapshot().queueDepth).toBe(2);
    await vi.advanceTimersByTimeAsync(60_000);
    await a;
    await vi.advanceTimersByTimeAsync(60_000);
    await c;
    expect(order).toEqual(['a', 'c']);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const ledger = createInMemoryBudgetLedger({ maxTasksPerMinute: 5 });
    await expect(ledger.acquire({}, AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
  });

  it('rolls the window without a 2x burst at a minute boundary', async () => {
    const ledger = createInMemoryBudgetLedger({ maxTasksPerMinute: 10 });
    // Fill the cap just before a fixed-bucket minute boundary would reset.
    vi.setSystemTime(59_000);
    for (let i = 0; i < 10; i++) await ledger.acquire({});
    vi.setSystemTime(60_001);
    const error = await rejection(ledger.acquire({}));
    expect((error as BudgetExceededError).metadata.limit).toBe('tasks');
    expect((error as BudgetExceededError).retryAfterSeconds).toBe(59);
    vi.setSystemTime(118_999);
    await expect(ledger.acquire({})).rejects.toBeDefined();
    vi.setSystemTime(119_000);
    for (let i = 0; i < 10; i++) await ledger.acquire({});
    await expect(ledger.acquire({})).rejects.toBeDefined();
  });

  it('caps spend in any rolling window, and old spend expires piecewise', async () => {
    const ledger = createInMemoryBudgetLedger({ maxTokensPerMinute: 100 });
    vi.setSystemTime(0);
    const t1 = await ledger.acquire({});
    await ledger.meter(t1, { tokens: 60 });
    vi.setSystemTime(30_000);
    const t2 = await ledger.acquire({});
    await ledger.meter(t2, { tokens: 40 });
    await expect(ledger.acquire({})).rejects.toMatchObject({ metadata: { limit: 'tokens' } });
    vi.setSystemTime(60_000);
    expect(ledger.snapshot().window?.tokens).toBe(40);
    await expect(ledger.acquire({ estimatedTokens: 61 })).rejects.toMatchObject({ metadata: { limit: 'tokens' } });
    await expect(ledger.acquire({ estimatedTokens: 60 })).resolves.toBeDefined();
  });

  it('meters a ticket once', async () => {
    const ledger = createInMemoryBudgetLedger({ maxUsdPerMinute: 1 });
    const ticket = await ledger.acquire({});
    expect(ledger.snapshot().inFlight).toBe(1);
    await ledger.meter(ticket, { usd: 0.25 });
    await ledger.meter(ticket, { usd: 0.25 });
    expect(ledger.snapshot()).toMatchObject({ inFlight: 0, window: { usd: 0.25 }, totals: { usd: 0.25, tasks: 1 } });
  });

  it('sheds a request whose estimate alone exceeds the cap even under queue', async () => {
    const ledger = createInMemoryBudgetLedger({ maxUsdPerMinute: 1, overflow: { kind: 'queue', maxQueueDepth: 5 } });
    await expect(ledger.acquire({ estimatedUsd: 2 })).rejects.toMatchObject({ metadata: { limit: 'usd' } });
    expect(ledger.snapshot().queueDepth).toBe(0);
  });

  it('validates options and amounts', async () => {
    expect(() => createInMemoryBudgetLedger({ maxUsdPerMinute: -1 })).toThrow(RangeError);
    expect(() => createInMemoryBudgetLedger({ maxTasksPerMinute: 1.5 })).toThrow(RangeError);
    expect(() => createInMemoryBudgetLedger({ windowMs: 0 })).toThrow(RangeError);
    const ledger = createInMemoryBudgetLedger({ maxTasksPerMinute: 1 });
    expect(() => ledger.acquire({ estimatedUsd: Number.NaN })).toThrow(RangeError);
  });
});

describe('uncapped ledger fast path', () => {
  it('returns the same settled promise and counts totals without a window', async () => {
    const ledger = createInMemoryBudgetLedger({});
    const first = ledger.acquire({});
    expect(ledger.acquire({})).toBe(first);
    const ticket = await first;
    expect(ledger.meter(ticket, { usd: 0.5, tokens: 3 })).toBe(ledger.meter(ticket, {}));
    expect(ledger.snapshot()).toMatchObject({ window: undefined, totals: { tasks: 2, usd: 0.5, tokens: 3 } });
  });
});

describe('estimate reservations', () => {
  it('holds an in-flight estimate against the cap until the ticket is metered', async () => {
    const ledger = createInMemoryBudgetLedger({ maxUsdPerMinute: 1, clock: () => 0 });
    const first = await ledger.acquire({ estimatedUsd: 0.6 });
    expect(ledger.snapshot().reserved).toEqual({ usd: 0.6, tokens: 0 });
    await expect(ledger.acquire({ estimatedUsd: 0.5 })).rejects.toMatchObject({ metadata: { limit: 'usd' } });
    await ledger.meter(first, { usd: 0.4 });
    await expect(ledger.acquire({ estimatedUsd: 0.5 })).resolves.toBeDefined();
  });

  it('wakes a queued request when a reservation is metered', async () => {
    const ledger = createInMemoryBudgetLedger({ maxTokensPerMinute: 100, overflow: { kind: 'queue', maxQueueDepth: 1 }, clock: () => 0 });
    const first = await ledger.acquire({ estimatedTokens: 80 });
    const waiting = ledger.acquire({ estimatedTokens: 50 });
    expect(ledger.snapshot().queueDepth).toBe(1);
    await ledger.meter(first, { tokens: 40 });
    await expect(waiting).resolves.toBeDefined();
    expect(ledger.snapshot().window?.tokens).toBe(40);
  });
});
