import { BudgetExceededError } from '@a2aplane/a2a-types';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type BudgetAcquireRequest,
  type BudgetLedger,
  type BudgetTicket,
  type GlobalBudgetOptions,
  createInMemoryBudgetLedger,
} from '../src/index.js';

async function outcome(promise: Promise<BudgetTicket>): Promise<{ ok: true; ticket: BudgetTicket } | { ok: false; error: unknown }> {
  try {
    return { ok: true, ticket: await promise };
  } catch (error) {
    return { ok: false, error };
  }
}

/** Acquires through the synchronous fast path, falling back to `acquire` as the Governor does. */
function viaTryAcquire(ledger: BudgetLedger, request: BudgetAcquireRequest): Promise<BudgetTicket> {
  const ticket = ledger.tryAcquire?.(request);
  return ticket === undefined ? ledger.acquire(request) : Promise.resolve(ticket);
}

type Step = { acquire: BudgetAcquireRequest } | { meter: number; usd?: number; tokens?: number } | { advance: number };

const scenarios: Array<[string, GlobalBudgetOptions, Step[]]> = [
  ['uncapped', {}, [{ acquire: {} }, { meter: 0, usd: 0.5, tokens: 3 }, { acquire: { estimatedUsd: 2 } }]],
  [
    'tasks cap, shed, window rolls',
    { maxTasksPerMinute: 2 },
    [
      { acquire: {} },
      { advance: 10_000 },
      { acquire: {} },
      { acquire: {} },
      { advance: 50_000 },
      { acquire: {} },
      { acquire: {} },
      { advance: 10_000 },
      { acquire: {} },
    ],
  ],
  [
    'usd reservations, shed',
    { maxUsdPerMinute: 1 },
    [
      { acquire: { estimatedUsd: 0.6 } },
      { acquire: { estimatedUsd: 0.5 } },
      { meter: 0, usd: 0.4 },
      { acquire: { estimatedUsd: 0.5 } },
      { acquire: { estimatedUsd: 2 } },
    ],
  ],
  [
    'tokens, many grants in one millisecond',
    { maxTokensPerMinute: 100, maxTasksPerMinute: 5 },
    [
      { acquire: { estimatedTokens: 10 } },
      { acquire: { estimatedTokens: 10 } },
      { acquire: { estimatedTokens: 10 } },
      { meter: 1, tokens: 70 },
      { acquire: { estimatedTokens: 10 } },
      { acquire: {} },
      { acquire: {} },
      { advance: 60_000 },
      { acquire: { estimatedTokens: 90 } },
    ],
  ],
];

describe('tryAcquire has the semantics of acquire (table-driven)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each(scenarios)('%s', async (_name, options, steps) => {
    async function run(acquire: (ledger: BudgetLedger, request: BudgetAcquireRequest) => Promise<BudgetTicket>) {
      vi.setSystemTime(1_000_000);
      const ledger = createInMemoryBudgetLedger(options);
      const tickets: BudgetTicket[] = [];
      const trace: unknown[] = [];
      for (const step of steps) {
        if ('acquire' in step) {
          const result = await outcome(acquire(ledger, step.acquire));
          if (result.ok) tickets.push(result.ticket);
          trace.push(
            result.ok
              ? { ok: true, acquiredAt: result.ticket.acquiredAt }
              : {
                  ok: false,
                  limit: (result.error as BudgetExceededError).metadata.limit,
                  retryAfterSeconds: (result.error as BudgetExceededError).retryAfterSeconds,
                },
          );
        } else if ('meter' in step) {
          await ledger.meter(tickets[step.meter]!, { usd: step.usd, tokens: step.tokens });
        } else vi.advanceTimersByTime(step.advance);
        trace.push(ledger.snapshot());
      }
      return trace;
    }
    const slow = await run((ledger, request) => ledger.acquire(request));
    const fast = await run(viaTryAcquire);
    expect(fast).toEqual(slow);
  });

  it('never jumps the queue: with a waiter queued tryAcquire declines even when the request would fit', async () => {
    const ledger = createInMemoryBudgetLedger({ maxUsdPerMinute: 1, overflow: { kind: 'queue', maxQueueDepth: 4 } });
    const holder = await ledger.acquire({ estimatedUsd: 0.5 });
    const waiting = ledger.acquire({ estimatedUsd: 0.6 });
    expect(ledger.snapshot().queueDepth).toBe(1);
    expect(ledger.tryAcquire?.({ estimatedUsd: 0.1 })).toBeUndefined();
    expect(ledger.snapshot()).toMatchObject({ inFlight: 1, queueDepth: 1 });
    await ledger.meter(holder, { usd: 0 });
    await expect(waiting).resolves.toBeDefined();
    expect(ledger.tryAcquire?.({ estimatedUsd: 0.1 })).toBeDefined();
  });

  it('validates amounts like acquire', () => {
    const ledger = createInMemoryBudgetLedger({ maxTasksPerMinute: 1 });
    expect(() => ledger.tryAcquire?.({ estimatedUsd: Number.NaN })).toThrow(RangeError);
    expect(() => ledger.tryAcquire?.({ estimatedTokens: -1 })).toThrow(RangeError);
    expect(ledger.snapshot().totals.tasks).toBe(0);
  });
});

describe('shared refusals', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('identical refusals share one frozen typed error and one rejected promise', async () => {
    const ledger = createInMemoryBudgetLedger({ maxTasksPerMinute: 1 });
    await ledger.acquire({});
    const first = ledger.acquire({});
    const second = ledger.acquire({});
    expect(second).toBe(first);
    const error = await first.catch((reason: unknown) => reason);
    expect(BudgetExceededError.isInstance(error)).toBe(true);
    const budgetError = error as BudgetExceededError;
    expect(budgetError).toBeInstanceOf(BudgetExceededError);
    expect(budgetError).toMatchObject({
      reason: 'BUDGET_EXCEEDED',
      httpStatus: 429,
      retryAfterSeconds: 60,
      metadata: { limit: 'tasks', observed: '1', cap: '1' },
    });
    expect(Object.isFrozen(budgetError)).toBe(true);
    expect(Object.isFrozen(budgetError.metadata)).toBe(true);
    expect(budgetError.toRestError().error.details[0]).toMatchObject({ reason: 'BUDGET_EXCEEDED', metadata: { limit: 'tasks' } });
    await expect(second).rejects.toBe(budgetError);
  });

  it('a refusal that differs (here retryAfterSeconds) gets its own error', async () => {
    const ledger = createInMemoryBudgetLedger({ maxTasksPerMinute: 1 });
    await ledger.acquire({});
    const refusal = (): Promise<BudgetExceededError> =>
      ledger.acquire({}).then(
        () => Promise.reject(new Error('expected a refusal')),
        (reason: unknown) => reason as BudgetExceededError,
      );
    const early = await refusal();
    vi.advanceTimersByTime(1_500);
    const later = await refusal();
    expect(later).not.toBe(early);
    expect(early.retryAfterSeconds).toBe(60);
    expect(later.retryAfterSeconds).toBe(59);
  });

  it('shares queue_full rejections too, and each caller can handle them', async () => {
    const ledger = createInMemoryBudgetLedger({ maxTasksPerMinute: 1, overflow: { kind: 'queue', maxQueueDepth: 1 } });
    await ledger.acquire({});
    const queued = ledger.acquire({});
    const full = [ledger.acquire({}), ledger.acquire({})];
    expect(full[1]).toBe(full[0]);
    for (const promise of full) await expect(promise).rejects.toMatchObject({ metadata: { limit: 'queue_full', maxQueueDepth: '1' } });
    await vi.advanceTimersByTimeAsync(60_000);
    await expect(queued).resolves.toBeDefined();
  });
});

describe('queue wake-ups', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a head blocked only by an in-flight reservation arms no timer and is granted by the meter that frees it', async () => {
    const ledger = createInMemoryBudgetLedger({ maxUsdPerMinute: 1, overflow: { kind: 'queue', maxQueueDepth: 4 } });
    let holder = await ledger.acquire({ estimatedUsd: 1 });
    for (let i = 0; i < 3; i++) {
      const waiting = ledger.acquire({ estimatedUsd: 1 });
      expect(ledger.snapshot().queueDepth).toBe(1);
      expect(vi.getTimerCount()).toBe(0);
      await ledger.meter(holder, { usd: 0 });
      holder = await waiting;
    }
    expect(ledger.snapshot()).toMatchObject({ inFlight: 1, queueDepth: 0, totals: { tasks: 4 } });
  });

  it('a head that expiry can admit arms one timer, cleared when the queue drains', async () => {
    const ledger = createInMemoryBudgetLedger({ maxTasksPerMinute: 1, overflow: { kind: 'queue', maxQueueDepth: 4 } });
    await ledger.acquire({});
    const controller = new AbortController();
    const waiting = ledger.acquire({}, controller.signal);
    const behind = ledger.acquire({}, controller.signal);
    expect(vi.getTimerCount()).toBe(1);
    controller.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
    await expect(behind).rejects.toThrow('gone');
    expect(ledger.snapshot().queueDepth).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a head blocked by spend that expires is woken by the timer at the exact expiry', async () => {
    const ledger = createInMemoryBudgetLedger({ maxTokensPerMinute: 100, overflow: { kind: 'queue', maxQueueDepth: 4 } });
    const start = Date.now();
    await ledger.meter(await ledger.acquire({}), { tokens: 100 });
    let granted: BudgetTicket | undefined;
    const waiting = ledger.acquire({ estimatedTokens: 10 }).then((ticket) => {
      granted = ticket;
    });
    await vi.advanceTimersByTimeAsync(59_999);
    expect(granted).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await waiting;
    expect(granted?.acquiredAt).toBe(start + 60_000);
  });
});

describe('in-flight ticket registry', () => {
  it('tracks many concurrent tickets metered out of order, including long-running ones', async () => {
    let now = 0;
    const ledger = createInMemoryBudgetLedger({ maxTokensPerMinute: 1e12, clock: () => now });
    const longRunning = await ledger.acquire({ estimatedTokens: 7 });
    const tickets: BudgetTicket[] = [];
    for (let i = 0; i < 3000; i++) tickets.push(await ledger.acquire({ estimatedTokens: 1 }));
    expect(ledger.snapshot()).toMatchObject({ inFlight: 3001, reserved: { tokens: 3007 } });
    // Meter in a scrambled order; a third stay in flight while 20 000 short tasks come and go.
    const order = tickets.map((ticket, index) => ({ ticket, key: (index * 7919) % 3001 })).sort((a, b) => a.key - b.key);
    for (const { ticket } of order.slice(0, 2000)) await ledger.meter(ticket, { tokens: 1 });
    for (let i = 0; i < 20_000; i++) {
      now++;
      await ledger.meter(await ledger.acquire({ estimatedTokens: 2 }), { tokens: 2 });
    }
    expect(ledger.snapshot()).toMatchObject({ inFlight: 1001, reserved: { tokens: 1007 } });
    for (const { ticket } of order.slice(2000)) await ledger.meter(ticket, { tokens: 1 });
    await ledger.meter(longRunning, { tokens: 7 });
    await ledger.meter(longRunning, { tokens: 7 });
    expect(ledger.snapshot()).toMatchObject({ inFlight: 0, reserved: { tokens: 0 }, totals: { tasks: 23_001, tokens: 3000 + 40_000 + 7 } });
  });

  it('meters by ticket id (a copy of a ticket is the same ticket) and ignores unknown ids', async () => {
    const ledger = createInMemoryBudgetLedger({ maxUsdPerMinute: 10, clock: () => 0 });
    const ticket = await ledger.acquire({ estimatedUsd: 1 });
    await ledger.meter({ id: 0, acquiredAt: 0 }, { usd: 5 });
    await ledger.meter({ id: ticket.id + 1, acquiredAt: 0 }, { usd: 5 });
    expect(ledger.snapshot()).toMatchObject({ inFlight: 1, reserved: { usd: 1 }, window: { usd: 0 } });
    await ledger.meter({ ...ticket }, { usd: 0.5 });
    await ledger.meter(ticket, { usd: 0.5 });
    expect(ledger.snapshot()).toMatchObject({ inFlight: 0, reserved: { usd: 0 }, window: { usd: 0.5 } });
  });

  it('counts every task granted in the same clock reading against the cap', async () => {
    let now = 5_000;
    const ledger = createInMemoryBudgetLedger({ maxTasksPerMinute: 50, clock: () => now });
    for (let i = 0; i < 50; i++) await ledger.acquire({});
    await expect(ledger.acquire({})).rejects.toMatchObject({ metadata: { limit: 'tasks', observed: '50' }, retryAfterSeconds: 60 });
    expect(ledger.snapshot().window?.tasks).toBe(50);
    now += 59_999;
    await expect(ledger.acquire({})).rejects.toMatchObject({ retryAfterSeconds: 1 });
    now += 1;
    expect(ledger.snapshot().window?.tasks).toBe(0);
    for (let i = 0; i < 50; i++) await ledger.acquire({});
    expect(ledger.tryAcquire?.({})).toBeUndefined();
  });
});
