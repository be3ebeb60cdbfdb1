import { randomUUID } from 'node:crypto';
import { createCircuitBreaker, type TaskPushNotificationConfig } from '@a2aplane/a2a-types';
import { type AttemptOutcome, createAttempt } from './delivery-attempt.js';
import { coalesce, type Delivery, type Lane, laneKey, type Registration, registrationKey, waitingIn } from './lanes.js';
import type { PushOutboxEntry } from './push-outbox.js';
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

/**
 * The secret a push config carries for its receiver: its `token`, else its `authentication`
 * credentials. Key a per-config HMAC signer with it, so no receiver can forge another's notifications.
 */
export function pushConfigSecret(config: TaskPushNotificationConfig): string | undefined {
  if (typeof config?.token === 'string' && config.token !== '') return config.token;
  const credentials = config?.authentication?.credentials;
  return typeof credentials === 'string' && credentials !== '' ? credentials : undefined;
}

function checkCount(value: number | undefined, fallback: number, name: string, min: number): number {
  const resolved = value ?? fallback;
  if (typeof resolved !== 'number' || !Number.isFinite(resolved) || resolved < min) {
    throw new RangeError(`expected ${name} to be a number >= ${min}, got ${String(value)}`);
  }
  return resolved;
}

const defaultSleep = (ms: number) =>
  new Promise<void>((resolve) => {
    // Never keeps the process alive on its own: a retry that is not needed any more just never runs.
    setTimeout(resolve, ms).unref?.();
  });

/** Entries taken over from dead replicas per claim. */
const CLAIM_BATCH = 256;

/**
 * Delivers push notifications (spec §3.5.3, §4.3.3, §13.2): POST of the StreamResponse as JSON,
 * with the config's credentials, an optional signature, an SSRF check before every attempt and
 * exponential backoff with jitter on 5xx / 429 / network errors (`delivery-attempt.ts`).
 *
 * Isolated per registration (origin + path + tenant): its own lanes, concurrency and circuit
 * breaker, so a failing or slow endpoint cannot delay another's notifications (`lanes.ts`). Per
 * task and push config deliveries are in order, and never dropped: when a receiver falls behind,
 * the notifications waiting for it are coalesced into the newest, which carries the task's latest
 * state. With an `outbox`, pending deliveries outlive this process (`push-outbox.ts`).
 */
export function createPushSender(options: PushSenderOptions = {}): PushSender {
  const maxAttempts = checkCount(options.maxAttempts, 5, 'maxAttempts', 1);
  const maxConcurrency = checkCount(options.maxConcurrency, 64, 'maxConcurrency', 1);
  const perRegistration = checkCount(options.maxConcurrencyPerDestination, 4, 'maxConcurrencyPerDestination', 1);
  const maxQueue = checkCount(options.maxQueue, 10_000, 'maxQueue', 1);
  const maxPendingPerTask = checkCount(options.maxPendingPerTask, 1_000, 'maxPendingPerTask', 1);
  const failureThreshold = checkCount(options.breakerThreshold, 3, 'breakerThreshold', 1);
  const cooldownMs = checkCount(options.breakerCooldownMs, 10_000, 'breakerCooldownMs', 0);
  const leaseMs = checkCount(options.outboxLeaseMs, 30_000, 'outboxLeaseMs', 1);
  const sleep = options.sleep ?? defaultSleep;
  const clock = options.clock ?? Date.now;
  const { outbox } = options;
  const owner = randomUUID();
  const signerOption = options.signer;
  const signerFor: WebhookSignerForConfig = typeof signerOption === 'function' ? signerOption : () => signerOption;

  const registrations = new Map<string, Registration>();
  const counts: Omit<PushSenderStats, 'pending' | 'inFlight'> = { delivered: 0, failed: 0, refused: 0, coalesced: 0, dropped: 0 };
  /** Attempts in flight, all registrations. */
  let active = 0;
  /** Deliveries waiting for their first attempt, all registrations. */
  let waiting = 0;
  /** Deliveries not finished (waiting, in flight or between attempts). */
  let unfinished = 0;
  let closed = false;
  let idleWaiters: (() => void)[] = [];

  const emit = (event: PushDeliveryEvent) => {
    if (event.type !== 'retrying') counts[event.type] += 1;
    try {
      options.onEvent?.(event);
    } catch {
      // A faulty observer must not break delivery.
    }
  };

  const attempt = createAttempt({
    maxAttempts,
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

  const settleIdle = () => {
    if (unfinished !== 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  };

  /** The outbox forgets a delivery that ended here (a failure to say so only costs a duplicate later). */
  const ackStored = (delivery: Delivery): void => {
    if (delivery.persisted) outbox?.ack(delivery.base.deliveryId).catch(() => undefined);
  };

  /**
   * A registration with nothing to send is forgotten, breaker included (a later delivery starts
   * closed), except while its open breaker waits out the cooldown: so the map holds only
   * registrations with work, plus dead ones for one cooldown.
   */
  const forgetIfIdle = (registration: Registration): void => {
    if (registration.lanes.size === 0 && registration.active === 0 && !registration.waking) registrations.delete(registration.key);
  };

  const finishHead = (lane: Lane): void => {
    const delivery = lane.items.shift() as Delivery;
    unfinished -= 1;
    ackStored(delivery);
    if (lane.items.length === 0) lane.registration.lanes.delete(lane.key);
    forgetIfIdle(lane.registration);
  };

  /** After an open breaker's cooldown, pumps again (the breaker then admits one probe). */
  const wakeAfterCooldown = (registration: Registration): void => {
    if (registration.waking) return;
    registration.waking = true;
    const wake = () => {
      registration.waking = false;
      forgetIfIdle(registration);
      pump();
    };
    sleep(cooldownMs).then(wake, wake);
  };

  /**
   * What an attempt tells the registration's breaker. A delivery that used every attempt, or a
   * failed probe, counts as a failure; a retry still to come does not (the receiver may be
   * recovering: 503, 503, 200 must not open it), and a refusal or a 4xx says nothing.
   */
  const recordHealth = (registration: Registration, outcome: AttemptOutcome, probe: boolean): void => {
    const { breaker } = registration;
    if (outcome.done && outcome.health === 'up') breaker.recordSuccess();
    else if ((outcome.done && outcome.health === 'down') || (!outcome.done && probe)) breaker.recordFailure();
    else if (probe) breaker.releaseProbe();
    if (!breaker.isAvailable()) wakeAfterCooldown(registration);
  };

  const afterAttempt = (lane: Lane, delivery: Delivery, outcome: AttemptOutcome, probe: boolean): void => {
    const { registration } = lane;
    active -= 1;
    registration.active -= 1;
    lane.inFlight = false;
    recordHealth(registration, outcome, probe);
    if (outcome.done) {
      lane.busy = false;
      finishHead(lane);
    } else if (closed) {
      lane.busy = false;
      handOver(delivery, 'sender closed before the retry');
      finishHead(lane);
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
    const delivery = lane.items[0] as Delivery;
    if (delivery.attempt === 0) waiting -= 1;
    lane.busy = true;
    lane.inFlight = true;
    active += 1;
    lane.registration.active += 1;
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
    for (const registration of registrations.values()) {
      if (active >= maxConcurrency) return;
      const { breaker } = registration;
      if (!breaker.isAvailable()) continue;
      for (const lane of registration.lanes.values()) {
        if (active >= maxConcurrency || registration.active >= perRegistration) break;
        const head = lane.items[0];
        if (lane.busy || head === undefined || !head.ready) continue;
        // Half-open: this takes the one probe, and the loop stops there.
        const probe = breaker.state() === 'half-open';
        if (!breaker.canRequest()) break;
        run(lane, probe);
        if (probe) break;
      }
    }
  };

  /**
   * A delivery this sender will not try (it is closing): with an outbox it goes back for another
   * replica; without one it is dropped or, when it was already tried, failed.
   */
  const handOver = (delivery: Delivery, reason: string): void => {
    const { base } = delivery;
    if (delivery.persisted && outbox) {
      outbox.release(base.deliveryId, owner).catch(() => undefined);
      emit({ type: 'dropped', reason: 'handed-over', ...base });
    } else if (delivery.attempt === 0) emit({ type: 'dropped', reason: 'closed', ...base });
    else emit({ type: 'failed', attempts: delivery.attempt, reason, ...base });
  };

  const toEntry = (delivery: Delivery): PushOutboxEntry => {
    const { input } = delivery;
    return {
      id: delivery.base.deliveryId,
      taskId: input.taskId,
      ...(input.tenant === undefined ? {} : { tenant: input.tenant }),
      config: input.config,
      payload: input.payload,
    };
  };

  /**
   * Stores a delivery before its first attempt, so a replica that dies leaves it to another. It
   * counts as stored from here on: an `ack` sent meanwhile follows the `enqueue` on the connection.
   */
  const store = (delivery: Delivery): void => {
    if (!outbox) return;
    delivery.ready = false;
    delivery.persisted = true;
    const ready = () => {
      delivery.ready = true;
      pump();
    };
    // The outbox down: delivered from memory all the same (this replica's death would lose it).
    outbox.enqueue(toEntry(delivery), { owner, leaseMs }).then(ready, () => {
      delivery.persisted = false;
      ready();
    });
  };

  /** Coalesces a lane's waiting notifications into its newest one, reporting each folded one. */
  const fold = (lane: Lane): void => {
    const folded = coalesce(lane);
    if (folded.length === 0) return;
    const newest = lane.items.at(-1) as Delivery;
    for (const delivery of folded) {
      waiting -= 1;
      unfinished -= 1;
      ackStored(delivery);
      emit({ type: 'coalesced', into: newest.base.deliveryId, ...delivery.base });
    }
    if (newest.persisted) store(newest);
  };

  const registrationFor = (input: PushNotifyInput): Registration => {
    const key = registrationKey(input.config.url, input.tenant ?? input.config.tenant ?? '');
    let registration = registrations.get(key);
    if (registration === undefined) {
      const breaker = createCircuitBreaker({ failureThreshold, cooldownMs, clock });
      registration = { key, lanes: new Map(), active: 0, breaker, waking: false };
      registrations.set(key, registration);
    }
    return registration;
  };

  /** Queues a delivery in its lane, coalescing when the lane or the whole sender holds too many. */
  const enqueue = (input: PushNotifyInput, deliveryId: string, persisted: boolean): Delivery => {
    const registration = registrationFor(input);
    const key = laneKey(input);
    let lane = registration.lanes.get(key);
    if (lane === undefined) {
      lane = { key, registration, items: [], busy: false, inFlight: false, latest: undefined };
      registration.lanes.set(key, lane);
    }
    if (input.task !== undefined) lane.latest = input.task;
    const configId = input.config.id ? { configId: input.config.id } : {};
    const delivery: Delivery = {
      input,
      base: { taskId: input.taskId, deliveryId, ...configId },
      attempt: 0,
      body: undefined,
      headers: undefined,
      ready: true,
      persisted,
    };
    lane.items.push(delivery);
    waiting += 1;
    unfinished += 1;
    if (waitingIn(lane) > maxPendingPerTask || waiting > maxQueue) fold(lane);
    return delivery;
  };

  /**
   * Renews this replica's lease and takes over the deliveries of replicas whose lease ended, batch
   * after batch while there is room to queue them (with none, it only renews).
   */
  const claimOrphans = async (): Promise<void> => {
    for (let full = true; full && outbox && !closed; ) {
      const room = waiting < maxQueue ? CLAIM_BATCH : 0;
      const entries = await outbox.claim({ owner, leaseMs }, room);
      full = room > 0 && entries.length === room;
      for (const entry of entries) {
        if (closed) {
          outbox.release(entry.id, owner).catch(() => undefined);
          continue;
        }
        const input: PushNotifyInput = { config: entry.config, payload: entry.payload, taskId: entry.taskId };
        if (entry.tenant !== undefined) input.tenant = entry.tenant;
        enqueue(input, entry.id, true);
      }
      pump();
    }
  };
  const claimTimer = outbox
    ? setInterval(() => void claimOrphans().catch(() => undefined), Math.max(1, Math.floor(leaseMs / 3)))
    : undefined;
  claimTimer?.unref?.();

  const flush = (): Promise<void> => {
    if (unfinished === 0) return Promise.resolve();
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
      store(enqueue(input, randomUUID(), false));
      pump();
    },
    flush,
    stats: () => ({ pending: waiting, inFlight: active, ...counts }),
    close() {
      closed = true;
      if (claimTimer) clearInterval(claimTimer);
      // Shutdown is bounded: only attempts in flight finish (each within timeoutMs); the rest is
      // handed to the outbox for another replica, or (with none) dropped or failed.
      for (const registration of [...registrations.values()]) {
        for (const lane of [...registration.lanes.values()]) {
          const keep = lane.inFlight ? 1 : 0;
          for (const delivery of lane.items.splice(keep)) {
            if (delivery.attempt === 0) waiting -= 1;
            handOver(delivery, 'sender closed before the retry');
            unfinished -= 1;
          }
          if (lane.items.length === 0) registration.lanes.delete(lane.key);
        }
        if (registration.lanes.size === 0 && registration.active === 0) registrations.delete(registration.key);
      }
      settleIdle();
      return flush();
    },
  };
}
