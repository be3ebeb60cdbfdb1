import {
  type BudgetAcquireRequest,
  type BudgetCapOptions,
  type BudgetLedger,
  type BudgetSnapshot,
  type BudgetTicket,
  checkBudgetAmount as checkAmount,
  createBudgetQueue,
  NANO_PER_USD as NANO,
  budgetRetrySeconds as retrySeconds,
  resolveBudgetOptions,
  usdToNano as toNano,
} from '@a2aplane/a2a-governance';
import { BudgetExceededError } from '@a2aplane/a2a-types';
import { ACQUIRE, METER, RENEW_TICKETS, RESERVE_MORE, SNAPSHOT } from './lua.js';
import { type Decision, RedisTicket } from './redis-ticket.js';
import { createScriptRunner, LeaseRenewer, type RedisGovernanceOptions } from './redis-script.js';

export interface RedisBudgetLedgerOptions extends RedisGovernanceOptions, BudgetCapOptions {
  /**
   * What happens when a cap is reached. Default `{ kind: 'shed' }`. Under `queue` each replica
   * keeps its own bounded FIFO (`maxQueueDepth` per replica) and retries its head when the window
   * should have room again (or a ticket of this replica is metered), at least every `pollMs`.
   */
  overflow?: BudgetCapOptions['overflow'];
  /**
   * Milliseconds a ticket's reservation lives without renewal. The ledger renews the leases of its
   * own in-flight tickets every third of it, so only a crashed (or cut-off) replica's reservations
   * expire, and the budget they held comes back. Default 30 000.
   */
  leaseMs?: number;
  /** Longest wait between retries of a queued head. Default 250 ms. */
  pollMs?: number;
}

/** A `BudgetLedger` whose window lives in Redis. */
export interface RedisBudgetLedger extends BudgetLedger {
  /**
   * Synchronous, as the interface requires, so it returns what the last `refresh()` read (zeros
   * before the first; Redis can't be asked synchronously). `limits` and `queueDepth` are always current.
   */
  snapshot(): BudgetSnapshot;
  /** Reads the shared window from Redis now; also updates what `snapshot()` returns. */
  refresh(): Promise<BudgetSnapshot>;
  /** Stops renewing leases and rejects queued requests. Does not close the client. */
  close(): void;
}

/** Reads the reply of the ACQUIRE script: a ticket, or the refusal it names. */
function decisionOf(reply: unknown[], windowMs: number): Decision {
  if (Number(reply[0]) === 1) return { ok: true, ticket: new RedisTicket(Number(reply[1]), Number(reply[2])) };
  const limit = String(reply[1]) as 'usd' | 'tokens' | 'tasks';
  const scale = limit === 'usd' ? NANO : 1;
  const observed = Number(reply[2]) / scale;
  const cap = Number(reply[3]) / scale;
  const retryMs = Number(reply[4]);
  const retryAfterMs = retryMs < 0 ? undefined : retryMs;
  const error = new BudgetExceededError({
    message: `global budget exceeded: ${limit} per ${windowMs / 1000}s window at ${observed} of ${cap}`,
    metadata: { limit, observed: String(observed), cap: String(cap) },
    retryAfterSeconds: retrySeconds(retryAfterMs),
  });
  return { ok: false, error: () => error, retryAfterMs, wakeMs: retryAfterMs };
}

/** Reads the reply of the SNAPSHOT script. */
function snapshotOf(reply: number[], windowMs: number, limits: BudgetSnapshot['limits'], queueDepth: number): BudgetSnapshot {
  const [usd = 0, tokens = 0, tasks = 0, inFlight = 0, rsvUsd = 0, rsvTokens = 0, totalUsd = 0, totalTokens = 0, totalTasks = 0] = reply;
  return {
    windowMs,
    limits,
    window: { usd: usd / NANO, tokens, tasks },
    inFlight,
    reserved: { usd: rsvUsd / NANO, tokens: rsvTokens },
    queueDepth,
    totals: { usd: totalUsd / NANO, tokens: totalTokens, tasks: totalTasks },
  };
}

/**
 * A `BudgetLedger` shared by every replica on one Redis: the rolling window, the caps and the
 * reservations live in Redis and every decision is one Lua script, so N replicas spend one budget
 * (never N) and concurrent acquires can't overshoot it. Semantics are those of
 * `createInMemoryBudgetLedger`: exact integer arithmetic (nano-dollars, whole tokens), estimates
 * reserved from acquire until metered, `BudgetExceededError` with `metadata.limit` and
 * `retryAfterSeconds`, one meter per ticket. Time is Redis's clock. With no cap set nothing is
 * stored in Redis (only this replica's lifetime totals are kept).
 *
 * When Redis can't be reached every call rejects, within `commandTimeoutMs`, with
 * `ServiceUnavailableError` (503): admission fails closed. A ticket whose meter was lost keeps its
 * reservation until its lease expires.
 */
export function createRedisBudgetLedger(options: RedisBudgetLedgerOptions): RedisBudgetLedger {
  const { windowMs, overflow, maxQueueDepth, capped, limits, ...caps } = resolveBudgetOptions(options);
  // The window is a Redis score difference in whole milliseconds.
  if (!Number.isInteger(windowMs)) throw new RangeError(`expected windowMs to be an integer > 0, got ${windowMs}`);
  const leaseMs = options.leaseMs ?? 30_000;
  if (!Number.isInteger(leaseMs) || leaseMs < 30) throw new RangeError(`expected leaseMs to be an integer >= 30, got ${leaseMs}`);
  const pollMs = options.pollMs ?? 250;
  if (!Number.isFinite(pollMs) || pollMs <= 0) throw new RangeError(`expected pollMs to be > 0, got ${pollMs}`);

  const runner = createScriptRunner(options);
  const p = runner.prefix;
  const keys = ['tasks', 'spend', 'spend-amounts', 'sums', 'inflight', 'reservations', 'seq'].map((name) => `${p}budget:${name}`);
  const keyTtl = 2 * (windowMs + leaseMs);
  // The Lua scripts read -1 as "no cap".
  const capUsdNano = caps.capUsdNano ?? -1;
  const capTokens = caps.capTokens ?? -1;
  const capTasks = caps.capTasks ?? -1;

  let last: BudgetSnapshot = {
    windowMs,
    limits,
    window: capped ? { usd: 0, tokens: 0, tasks: 0 } : undefined,
    inFlight: 0,
    reserved: { usd: 0, tokens: 0 },
    queueDepth: 0,
    totals: { usd: 0, tokens: 0, tasks: 0 },
  };
  // Uncapped: lifetime totals of this replica only.
  const local = { tasks: 0, usdNano: 0, tokens: 0 };
  /** Tickets of this replica not yet metered: their leases are renewed. */
  const renewer = new LeaseRenewer<RedisTicket>(Math.max(10, Math.floor(leaseMs / 3)), (tickets) =>
    runner.run(RENEW_TICKETS, keys, [windowMs, leaseMs, keyTtl, ...tickets.map((t) => t.id)]),
  );
  const metered = new WeakSet<BudgetTicket>();
  let closed = false;

  const decide = async (request: BudgetAcquireRequest): Promise<Decision> => {
    const estUsd = request.estimatedUsd === undefined ? 0 : toNano(request.estimatedUsd);
    const estTokens = Math.ceil(request.estimatedTokens ?? 0);
    const args = [windowMs, capUsdNano, capTokens, capTasks, estUsd, estTokens, leaseMs, keyTtl];
    const decision = decisionOf((await runner.run(ACQUIRE, keys, args)) as unknown[], windowMs);
    if (decision.ok) renewer.add(decision.ticket);
    return decision;
  };

  const queueFull = (): BudgetExceededError =>
    new BudgetExceededError({
      message: `global budget queue is full (${maxQueueDepth} waiting)`,
      metadata: { limit: 'queue_full', maxQueueDepth: String(maxQueueDepth) },
      retryAfterSeconds: 1,
    });
  const queue = createBudgetQueue({
    attempt: decide,
    // A ticket granted to a waiter that left while Redis answered.
    giveBack: (ticket) => void meterTicket(ticket as RedisTicket, {}).catch(() => undefined),
    pollMs,
    unref: true,
  });

  async function meterTicket(ticket: RedisTicket, actual: { usd?: number; tokens?: number }): Promise<void> {
    metered.add(ticket);
    renewer.delete(ticket);
    const usdNano = actual.usd === undefined ? 0 : toNano(actual.usd);
    const tokens = actual.tokens === undefined ? 0 : Math.ceil(actual.tokens);
    const released = await runner.run(METER, keys, [windowMs, ticket.id, usdNano, tokens, keyTtl]);
    // A released reservation may make room for this replica's queue.
    if (Number(released) === 1 && queue.length > 0) queue.pump();
  }

  return {
    async acquire(request, signal) {
      checkAmount('estimatedUsd', request.estimatedUsd);
      checkAmount('estimatedTokens', request.estimatedTokens);
      if (signal?.aborted) throw signal.reason;
      if (!capped) {
        local.tasks++;
        return new RedisTicket(0, Date.now());
      }
      if (closed) throw new TypeError('the Redis budget ledger is closed');
      if (queue.length > 0) {
        if (queue.length >= maxQueueDepth) throw queueFull();
        return queue.enqueue(request, signal);
      }
      const decision = await decide(request);
      if (decision.ok) {
        if (signal?.aborted) {
          await meterTicket(decision.ticket, {}).catch(() => undefined);
          throw signal.reason;
        }
        return decision.ticket;
      }
      if (overflow.kind === 'shed' || decision.retryAfterMs === undefined) throw decision.error();
      if (queue.length >= maxQueueDepth) throw queueFull();
      return queue.enqueue(request, signal, decision);
    },

    async reserveMore(ticket, more) {
      checkAmount('usd', more.usd);
      checkAmount('tokens', more.tokens);
      if (!capped) return true;
      if (!(ticket instanceof RedisTicket) || metered.has(ticket)) return false;
      const usdNano = capUsdNano < 0 || more.usd === undefined ? 0 : toNano(more.usd);
      const tokens = capTokens < 0 || more.tokens === undefined ? 0 : Math.ceil(more.tokens);
      const granted = await runner.run(RESERVE_MORE, keys, [windowMs, ticket.id, usdNano, tokens, capUsdNano, capTokens, leaseMs, keyTtl]);
      return Number(granted) === 1;
    },

    async meter(ticket, actual) {
      checkAmount('usd', actual.usd);
      checkAmount('tokens', actual.tokens);
      if (!capped) {
        if (actual.usd !== undefined) local.usdNano += toNano(actual.usd);
        if (actual.tokens !== undefined) local.tokens += actual.tokens;
        return;
      }
      if (!(ticket instanceof RedisTicket) || metered.has(ticket)) return;
      await meterTicket(ticket, actual);
    },

    snapshot() {
      if (!capped) {
        return { ...last, totals: { usd: local.usdNano / NANO, tokens: local.tokens, tasks: local.tasks } };
      }
      return { ...last, queueDepth: queue.length };
    },

    async refresh() {
      if (!capped) return this.snapshot();
      last = snapshotOf(((await runner.run(SNAPSHOT, keys, [windowMs])) as unknown[]).map(Number), windowMs, limits, queue.length);
      return last;
    },

    close() {
      closed = true;
      renewer.stop();
      queue.close(new TypeError('the Redis budget ledger is closed'));
    },
  };
}
