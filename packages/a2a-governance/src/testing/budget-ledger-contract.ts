import * as assert from './assert.js';
import { BudgetExceededError } from '@a2aplane/a2a-types';
import type { BudgetCapOptions, BudgetLedger } from '../budget-ledger.js';
import { type ContractTestApi, isPending, rejectionOf } from './contract-api.js';

export interface BudgetLedgerContractOptions {
  /**
   * A fresh ledger with these options and a window of its own (a shared backend: its own key
   * prefix). The suite never waits for the window to roll, so any `windowMs` it passes is long.
   */
  create(options: BudgetCapOptions): BudgetLedger | Promise<BudgetLedger>;
  /** Releases a ledger made by `create` (timers, connections, keys). */
  dispose?(ledger: BudgetLedger): void | Promise<void>;
}

/** The `limit` a budget refusal names, or a failure when `error` is not one. */
function refusedLimit(error: unknown): string | undefined {
  if (!BudgetExceededError.isInstance(error))
    throw new assert.ContractAssertionError(`expected a BudgetExceededError, got ${String(error)}`);
  const seconds = error.retryAfterSeconds;
  assert.ok(seconds !== undefined && Number.isInteger(seconds) && seconds >= 1, 'retryAfterSeconds is a whole number >= 1');
  return error.metadata.limit;
}

/**
 * The `BudgetLedger` contract: the caps (tasks counted at acquire; USD and tokens as metered spend
 * plus in-flight reservations), shed and queue overflow, one meter per ticket, `reserveMore`,
 * aborts and option checks. Every implementation runs it (`createInMemoryBudgetLedger` in this
 * package, the Redis ledger in `@a2aplane/a2a-redis`).
 */
export function describeBudgetLedgerContract(name: string, options: BudgetLedgerContractOptions, t: ContractTestApi): void {
  const made: BudgetLedger[] = [];
  const open = async (caps: BudgetCapOptions): Promise<BudgetLedger> => {
    const ledger = await options.create({ windowMs: 60_000, ...caps });
    made.push(ledger);
    return ledger;
  };

  t.describe(`BudgetLedger contract: ${name}`, () => {
    t.afterEach(async () => {
      for (const ledger of made.splice(0)) await options.dispose?.(ledger);
    });

    t.it('counts tasks at acquire and sheds past maxTasksPerMinute with limit tasks', async () => {
      const ledger = await open({ maxTasksPerMinute: 3 });
      for (let i = 0; i < 3; i++) await ledger.acquire({ caller: 'a' });
      assert.equal(refusedLimit(await rejectionOf(ledger.acquire({ caller: 'a' }))), 'tasks');
    });

    t.it('holds an estimate against the USD cap until its ticket is metered, then counts the actual spend', async () => {
      const ledger = await open({ maxUsdPerMinute: 1 });
      const first = await ledger.acquire({ estimatedUsd: 0.4 });
      await ledger.acquire({ estimatedUsd: 0.4 });
      assert.equal(refusedLimit(await rejectionOf(ledger.acquire({ estimatedUsd: 0.4 }))), 'usd');
      // Metered at 0.1: 0.1 spent + 0.4 reserved leaves room for exactly 0.5 more (integer units, no float drift).
      await ledger.meter(first, { usd: 0.1 });
      await ledger.acquire({ estimatedUsd: 0.5 });
      assert.equal(refusedLimit(await rejectionOf(ledger.acquire({ estimatedUsd: 0.01 }))), 'usd');
    });

    t.it('caps whole tokens the same way (limit tokens)', async () => {
      const ledger = await open({ maxTokensPerMinute: 100 });
      await ledger.acquire({ estimatedTokens: 60 });
      assert.equal(refusedLimit(await rejectionOf(ledger.acquire({ estimatedTokens: 41 }))), 'tokens');
      await ledger.acquire({ estimatedTokens: 40 });
    });

    t.it('meters a ticket once: a second meter of it is ignored', async () => {
      const ledger = await open({ maxUsdPerMinute: 1 });
      const ticket = await ledger.acquire({});
      await ledger.meter(ticket, { usd: 0.6 });
      await ledger.meter(ticket, { usd: 0.6 });
      // 0.6 counted once: 0.4 more fits exactly.
      await ledger.acquire({ estimatedUsd: 0.4 });
    });

    t.it('grows a reservation with reserveMore while the cap allows it, never for a metered ticket', async () => {
      const ledger = await open({ maxUsdPerMinute: 1 });
      const reserveMore = ledger.reserveMore?.bind(ledger);
      assert.ok(reserveMore, 'reserveMore is part of the contract');
      const ticket = await ledger.acquire({ estimatedUsd: 0.2 });
      assert.equal(await reserveMore(ticket, { usd: 0.5 }), true);
      assert.equal(await reserveMore(ticket, { usd: 0.4 }), false);
      assert.equal(refusedLimit(await rejectionOf(ledger.acquire({ estimatedUsd: 0.4 }))), 'usd');
      await ledger.meter(ticket, { usd: 0.3 });
      assert.equal(await reserveMore(ticket, { usd: 0.1 }), false);
      await ledger.acquire({ estimatedUsd: 0.7 });
    });

    t.it('sheds a request whose estimate alone exceeds the cap, even under queue', async () => {
      const ledger = await open({ maxUsdPerMinute: 1, overflow: { kind: 'queue', maxQueueDepth: 4 } });
      assert.equal(refusedLimit(await rejectionOf(ledger.acquire({ estimatedUsd: 1.5 }))), 'usd');
    });

    t.it('under queue, waits in a bounded FIFO: queue_full past maxQueueDepth, granted when a reservation is metered', async () => {
      const ledger = await open({ maxUsdPerMinute: 1, overflow: { kind: 'queue', maxQueueDepth: 1 } });
      const first = await ledger.acquire({ estimatedUsd: 0.8 });
      const waiting = ledger.acquire({ estimatedUsd: 0.5 });
      assert.equal(await isPending(waiting), true);
      assert.equal(refusedLimit(await rejectionOf(ledger.acquire({ estimatedUsd: 0.1 }))), 'queue_full');
      await ledger.meter(first, { usd: 0.3 });
      const granted = await waiting;
      await ledger.meter(granted, { usd: 0.5 });
    });

    t.it('rejects with the signal reason: at once when already aborted, and a queued request when aborted', async () => {
      const ledger = await open({ maxTasksPerMinute: 1, overflow: { kind: 'queue', maxQueueDepth: 2 } });
      const aborted = new AbortController();
      const reason = new Error('caller went away');
      aborted.abort(reason);
      assert.equal(await rejectionOf(ledger.acquire({}, aborted.signal)), reason);
      await ledger.acquire({});
      const later = new AbortController();
      const waiting = ledger.acquire({}, later.signal);
      assert.equal(await isPending(waiting), true);
      later.abort(reason);
      assert.equal(await rejectionOf(waiting), reason);
    });

    t.it('rejects invalid amounts with a RangeError', async () => {
      const ledger = await open({ maxTasksPerMinute: 10 });
      const error = await rejectionOf(Promise.resolve().then(() => ledger.acquire({ estimatedUsd: -1 })));
      assert.ok(error instanceof RangeError, `expected a RangeError, got ${String(error)}`);
    });

    t.it('refuses invalid options with the shared checks (resolveBudgetOptions)', async () => {
      for (const bad of [{ maxTasksPerMinute: 1.5 }, { maxUsdPerMinute: -1 }, { maxTokensPerMinute: Number.NaN }, { windowMs: 0 }]) {
        const error = await rejectionOf(Promise.resolve().then(() => open(bad)));
        assert.ok(error instanceof RangeError, `expected a RangeError for ${JSON.stringify(bad)}, got ${String(error)}`);
      }
    });

    t.it('with no cap, grants every request and reports no window', async () => {
      const ledger = await open({});
      for (let i = 0; i < 50; i++) await ledger.meter(await ledger.acquire({ estimatedUsd: 10 }), { usd: 10 });
      assert.equal(ledger.snapshot().window, undefined);
      assert.deepEqual(ledger.snapshot().limits, {});
    });
  });
}
