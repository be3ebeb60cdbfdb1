import { randomUUID } from 'node:crypto';
import { defaultSignerFor } from './hmac-signer.js';
import { admit, recordHealth, waitOutCooldown } from './breaker-gate.js';
import { type AttemptOutcome, createAttempt } from './delivery-attempt.js';
import { createDestinationQueue } from './destination-queue.js';
import type { Delivery, Lane, Registration } from './lanes.js';
import { createOutboxLink } from './outbox-link.js';
import type {
  PushDeliveryEvent,
  PushNotifyInput,
  PushSender,
  PushSenderOptions,
  PushSenderStats,
  WebhookSignerForConfig,
} from './push-types.js';
import { checkWebhookUrl } from './webhook-url.js';

export { IDEMPOTENCY_KEY_HEADER, PUSH_NOTIFICATION_TOKEN_HEADER } from './push-types.js';
export type {
  PushDeliveryEvent,
  PushNotifyInput,
  PushSender,
  PushSenderOptions,
  PushSenderStats,
  WebhookSigner,
  WebhookSignerForConfig,
} from './push-types.js';

export { pushConfigSecret } from './hmac-signer.js';

function checkCount(value: number | undefined, fallback: number, name: string, min: number): number {
  const resolved = value ?? fallback;
  if (typeof resolved !== 'number' || !Number.isFinite(resolved) || resolved < min) {
    throw new RangeError(`expected ${name} to be a number >= ${min}, got ${String(value)}`);
  }
  return resolved;
}

/** A real 50 ms wait, whatever `sleep` the options inject (a wait that resolves at once would spin). */
const shortly = () =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, 50).unref?.();
  });

const defaultSleep = (ms: number) =>
  new Promise<void>((resolve) => {
    // Never keeps the process alive on its own: a retry that is not needed any more just never runs.
    setTimeout(resolve, ms).unref?.();
  });

/**
 * Delivers push notifications (spec §3.5.3, §4.3.3, §13.2): POST of the StreamResponse as JSON,
 * with the config's credentials, an optional signature, an SSRF check before every attempt and
 * exponential backoff with jitter on 5xx / 429 / network errors (`delivery-attempt.ts`).
 *
 * Isolated per registration (origin + path + tenant): its own lanes, concurrency and circuit
 * breaker (`destination-queue.ts`, `breaker-gate.ts`), so a failing or slow endpoint cannot delay
 * another's notifications. Per task and push config deliveries are in order, and never dropped:
 * when a receiver falls behind, the notifications waiting for it are coalesced into the newest,
 * which carries the task's latest state (`lanes.ts`). With an `outbox`, pending deliveries outlive
 * this process (`outbox-link.ts`).
 */
export function createPushSender(options: PushSenderOptions = {}): PushSender {
  const maxConcurrency = checkCount(options.maxConcurrency, 64, 'maxConcurrency', 1);
  const perRegistration = checkCount(options.maxConcurrencyPerDestination, 4, 'maxConcurrencyPerDestination', 1);
  const maxQueue = checkCount(options.maxQueue, 10_000, 'maxQueue', 1);
  const cooldownMs = checkCount(options.breakerCooldownMs, 10_000, 'breakerCooldownMs', 0);
  const sleep = options.sleep ?? defaultSleep;
  const { counts, emit } = createDeliveryLog(options.onEvent);
  /** Attempts in flight, all registrations. */
  let active = 0;
  let closed = false;
  let idleWaiters: (() => void)[] = [];
  const attempt = createAttemptFor(options, emit);
  const link = createOutboxLink({
    outbox: options.outbox,
    owner: randomUUID(),
    leaseMs: checkCount(options.outboxLeaseMs, 30_000, 'outboxLeaseMs', 1),
    emit,
    ready: () => pump(),
  });
  const queue = createDestinationQueue({
    maxPendingPerTask: checkCount(options.maxPendingPerTask, 1_000, 'maxPendingPerTask', 1),
    maxQueue,
    breaker: {
      failureThreshold: checkCount(options.breakerThreshold, 3, 'breakerThreshold', 1),
      cooldownMs,
      clock: options.clock ?? Date.now,
    },
    onFolded(delivery, into) {
      link.ack(delivery);
      emit({ type: 'coalesced', into: into.base.deliveryId, ...delivery.base });
    },
  });
  const { counts: queued } = queue;

  const settleIdle = () => {
    if (queued.unfinished !== 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  };

  /** After a cooldown: pump (the breaker admits a probe), or look again shortly if a timer beat the breaker's clock. */
  const wake = (registration: Registration) => (): void => {
    queue.forgetIfIdle(registration);
    pump();
    if (!closed && registration.lanes.size > 0 && registration.breaker.state() === 'open')
      waitOutCooldown(registration, () => shortly(), wake(registration));
  };

  const afterAttempt = (lane: Lane, delivery: Delivery, outcome: AttemptOutcome, probe: boolean): void => {
    active -= 1;
    queue.stop(lane);
    if (recordHealth(lane.registration, outcome, probe))
      waitOutCooldown(lane.registration, () => sleep(cooldownMs), wake(lane.registration));
    if (outcome.done) link.ack(queue.finishHead(lane));
    else if (closed) {
      // Back to the outbox (not acknowledged: another replica delivers it), or failed without one.
      link.handOver(delivery, 'sender closed before the retry');
      queue.finishHead(lane);
    } else {
      // The slot is free while the retry waits; the lane stays blocked, so order holds.
      const resume = () => {
        lane.busy = false;
        pump();
      };
      sleep(outcome.delayMs).then(resume, resume);
    }
    pump();
    settleIdle();
  };

  const run = (lane: Lane, probe: boolean): void => {
    const delivery = queue.start(lane);
    active += 1;
    attempt(delivery)
      .catch((): AttemptOutcome => {
        emit({ type: 'failed', attempts: delivery.attempt, reason: 'internal error', ...delivery.base });
        return { done: true, health: 'unknown' };
      })
      .then((outcome) => afterAttempt(lane, delivery, outcome, probe));
  };

  /** Starts every attempt that may start now: per registration, lanes whose head is ready and not busy. */
  const pump = (): void => {
    if (closed) return;
    for (const registration of queue.registrations()) {
      if (active >= maxConcurrency) return;
      if (!registration.breaker.isAvailable()) continue;
      for (const lane of registration.lanes.values()) {
        if (active >= maxConcurrency || registration.active >= perRegistration) break;
        const head = lane.items[0];
        if (lane.busy || head === undefined || !head.ready) continue;
        const admitted = admit(registration);
        if (admitted === undefined) break;
        run(lane, admitted.probe);
        // Half-open: that was the one probe.
        if (admitted.probe) break;
      }
    }
  };

  const take = (input: PushNotifyInput, deliveryId: string, persisted: boolean): Delivery => {
    const { delivery, refolded } = queue.add(input, deliveryId, persisted);
    // The newest stored delivery now carries the folded ones: the outbox gets its new payload.
    if (refolded?.persisted) link.store(refolded);
    return delivery;
  };
  const stopClaims = link.startClaims(
    () => queued.waiting < maxQueue,
    (input, id) => {
      take(input, id, true);
      pump();
    },
    () => closed,
  );

  const flush = (): Promise<void> => {
    if (queued.unfinished === 0) return Promise.resolve();
    return new Promise<void>((resolve) => idleWaiters.push(resolve));
  };

  return {
    checkUrl: (url) => checkWebhookUrl(url, options.ssrf),
    notify(input) {
      if (typeof input !== 'object' || input === null || typeof input.config?.url !== 'string') {
        throw new TypeError('expected { config: { url }, payload, taskId }, got an invalid input');
      }
      if (closed) {
        emit({ type: 'dropped', reason: 'closed', taskId: input.taskId, ...(input.config.id ? { configId: input.config.id } : {}) });
        return;
      }
      link.store(take(input, randomUUID(), false));
      pump();
    },
    flush,
    stats: () => ({ pending: queued.waiting, inFlight: active, ...counts }),
    close() {
      closed = true;
      stopClaims();
      // Shutdown is bounded: only attempts in flight finish (each within timeoutMs); the rest is
      // handed to the outbox for another replica, or (with none) dropped or failed.
      queue.drain((delivery) => link.handOver(delivery, 'sender closed before the retry'));
      settleIdle();
      return flush();
    },
  };
}

/** Counts each notification's outcome and hands every event to `onEvent`. */
function createDeliveryLog(onEvent: PushSenderOptions['onEvent']) {
  const counts: Omit<PushSenderStats, 'pending' | 'inFlight'> = { delivered: 0, failed: 0, refused: 0, coalesced: 0, dropped: 0 };
  const emit = (event: PushDeliveryEvent): void => {
    if (event.type !== 'retrying') counts[event.type] += 1;
    try {
      onEvent?.(event);
    } catch {
      // A faulty observer must not break delivery.
    }
  };
  return { counts, emit };
}

/** The attempt function of a sender's options (`delivery-attempt.ts`). */
function createAttemptFor(options: PushSenderOptions, emit: (event: PushDeliveryEvent) => void) {
  const signerOption = options.signer;
  // Signed by default (HMAC keyed per config); `false` is the explicit opt-out.
  const signerFor: WebhookSignerForConfig =
    signerOption === undefined
      ? defaultSignerFor
      : signerOption === false
        ? () => undefined
        : typeof signerOption === 'function'
          ? signerOption
          : () => signerOption;
  return createAttempt({
    maxAttempts: checkCount(options.maxAttempts, 5, 'maxAttempts', 1),
    baseDelayMs: checkCount(options.baseDelayMs, 200, 'baseDelayMs', 0),
    maxDelayMs: checkCount(options.maxDelayMs, 10_000, 'maxDelayMs', 0),
    jitter: checkCount(options.jitter, 0.2, 'jitter', 0),
    timeoutMs: checkCount(options.timeoutMs, 5_000, 'timeoutMs', 1),
    connectTimeoutMs: checkCount(options.connectTimeoutMs, 2_000, 'connectTimeoutMs', 1),
    random: options.random ?? Math.random,
    now: options.now ?? (() => Math.floor(Date.now() / 1000)),
    fetch: options.fetch,
    signerFor,
    ssrf: options.ssrf,
    emit,
  });
}
