import { randomUUID } from 'node:crypto';
import { backoffDelay, parseRetryAfter, type StreamResponse, type TaskPushNotificationConfig } from '@a2aplane/a2a-types';
import { type DeliveryResponse, DeliveryTimeoutError, fetchDeliver, nodeDeliver } from './transport.js';
import type { PushSender as ServerPushSender, WebhookUrlCheck } from '../core/types.js';
import { checkWebhookUrl, type WebhookUrlOptions } from './webhook-url.js';

/**
 * Signs a webhook body. Structurally the `WebhookSigner` of `@a2aplane/a2a-identity`
 * (`createHmacWebhookSigner`, `createEd25519WebhookSigner`), kept local so that package stays an optional peer.
 */
export interface WebhookSigner {
  readonly algorithm: string;
  sign(body: string | Uint8Array, options: { timestamp: number }): Record<string, string> | Promise<Record<string, string>>;
}

/** The header that carries `TaskPushNotificationConfig.token` (as in the reference SDKs). */
export const PUSH_NOTIFICATION_TOKEN_HEADER = 'X-A2A-Notification-Token';
/** Stable across the retries of one delivery, so receivers can drop duplicates (spec §4.3.3). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

interface EventBase {
  taskId: string;
  configId?: string;
  deliveryId: string;
}

export type PushDeliveryEvent =
  | ({ type: 'delivered'; attempts: number; status: number } & EventBase)
  | ({ type: 'retrying'; attempt: number; status?: number; error?: string; delayMs: number } & EventBase)
  | ({ type: 'failed'; attempts: number; status?: number; reason: string } & EventBase)
  | ({ type: 'refused'; reason: string } & EventBase)
  | { type: 'dropped'; reason: 'queue-full' | 'closed'; taskId: string; configId?: string };

/** Picks the signer of one push config (say, HMAC keyed by the config's own secret); `undefined` sends it unsigned. */
export type WebhookSignerForConfig = (config: TaskPushNotificationConfig) => WebhookSigner | undefined;

export interface PushSenderOptions {
  /**
   * Signs every attempt. A `WebhookSigner` signs every delivery with one key (Ed25519: receivers
   * check the agent's public key). A function picks a signer per push config, so each receiver can
   * have its own HMAC secret: `(config) => { const secret = pushConfigSecret(config); return secret ? createHmacWebhookSigner(secret) : undefined }`.
   */
  signer?: WebhookSigner | WebhookSignerForConfig;
  /** Use this instead of the built-in node:http(s) transport. Note: it resolves DNS itself, so it is not pinned to vetted addresses. */
  fetch?: typeof fetch;
  /** Attempts per delivery, first included (default 5). */
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Fraction of the delay randomised either way (default 0.2). */
  jitter?: number;
  /** Time limit of one attempt, connection to response status (default 5000). */
  timeoutMs?: number;
  /** Time limit to connect (built-in transport; default 2000). */
  connectTimeoutMs?: number;
  /** Attempts in flight at once, all destinations together (default 64). */
  maxConcurrency?: number;
  /** Attempts in flight at once to one destination (URL origin; default 4). */
  maxConcurrencyPerDestination?: number;
  /** Deliveries waiting, all destinations together, before new ones are dropped (default 1000). */
  maxQueue?: number;
  /** Deliveries waiting for one destination before new ones to it are dropped (default 100). */
  maxQueuePerDestination?: number;
  /** Consecutive failed attempts to one destination that open its circuit breaker (default 5). */
  breakerThreshold?: number;
  /** How long an open breaker holds a destination's deliveries before one probe attempt (default 30 000 ms). */
  breakerCooldownMs?: number;
  ssrf?: WebhookUrlOptions;
  onEvent?: (event: PushDeliveryEvent) => void;
  random?: () => number;
  /** Waits between attempts and for a breaker's cooldown; injectable for tests. */
  sleep?: (ms: number) => Promise<void>;
  /** Seconds since the epoch, passed to the signer; defaults to the wall clock. */
  now?: () => number;
}

export interface PushNotifyInput {
  config: TaskPushNotificationConfig;
  payload: StreamResponse;
  taskId: string;
}

/** The server's push seam (`PushSender` of the core), with what this sender adds. */
export interface PushSender extends ServerPushSender {
  /** Queues one delivery; never throws for delivery problems (they are reported through `onEvent`). */
  notify(input: PushNotifyInput): void;
  /** Resolves once every queued and running delivery has finished. */
  flush(): Promise<void>;
  /** Stops accepting deliveries, drops the ones not attempted yet and waits for the attempts in flight. */
  close(): Promise<void>;
  /** `checkWebhookUrl` with this sender's `ssrf` options: what each delivery must pass. */
  checkUrl: WebhookUrlCheck;
}

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

function errorText(error: unknown): string {
  if (error instanceof DeliveryTimeoutError) return error.message;
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : 'network error';
}

/** Where a delivery goes, for queues, concurrency and the breaker: the URL's origin. */
function destinationOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'invalid';
  }
}

/** One notification to one push config, across its attempts. */
interface Delivery {
  input: PushNotifyInput;
  base: EventBase;
  /** Attempts made so far. */
  attempt: number;
  body: string | undefined;
  headers: Record<string, string> | undefined;
}

/** The deliveries of one (task, push config), in order: the next starts when the one before it is done. */
interface Lane {
  key: string;
  items: Delivery[];
  /** An attempt of the head delivery is running, or its retry delay is running. */
  busy: boolean;
  /** An attempt of the head delivery is running. */
  inFlight: boolean;
}

interface Destination {
  origin: string;
  lanes: Map<string, Lane>;
  /** Attempts in flight to this destination. */
  active: number;
  /** Deliveries queued here (not yet finished). */
  queued: number;
  /** Consecutive failed attempts. */
  failures: number;
  breaker: 'closed' | 'open' | 'half-open';
}

/**
 * Delivers push notifications (spec §3.5.3, §4.3.3, §13.2): POST of the StreamResponse as JSON,
 * with the config's credentials, an optional signature, an SSRF check before every attempt and
 * exponential backoff with jitter on 5xx / 429 / network errors. Isolated per destination (URL
 * origin): its own queue, concurrency and circuit breaker, so a slow or dead receiver cannot delay
 * another's notifications. A retry waits without holding a slot. Per task and push config,
 * deliveries are in order: a later notification waits until the earlier one is delivered or has
 * failed for good.
 */
export function createPushSender(options: PushSenderOptions = {}): PushSender {
  const maxAttempts = checkCount(options.maxAttempts, 5, 'maxAttempts', 1);
  const baseDelayMs = checkCount(options.baseDelayMs, 200, 'baseDelayMs', 0);
  const maxDelayMs = checkCount(options.maxDelayMs, 10_000, 'maxDelayMs', 0);
  const jitter = checkCount(options.jitter, 0.2, 'jitter', 0);
  const timeoutMs = checkCount(options.timeoutMs, 5_000, 'timeoutMs', 1);
  const connectTimeoutMs = checkCount(options.connectTimeoutMs, 2_000, 'connectTimeoutMs', 1);
  const maxConcurrency = checkCount(options.maxConcurrency, 64, 'maxConcurrency', 1);
  const perDestination = checkCount(options.maxConcurrencyPerDestination, 4, 'maxConcurrencyPerDestination', 1);
  const maxQueue = checkCount(options.maxQueue, 1000, 'maxQueue', 0);
  const maxQueuePerDestination = checkCount(options.maxQueuePerDestination, 100, 'maxQueuePerDestination', 0);
  const breakerThreshold = checkCount(options.breakerThreshold, 5, 'breakerThreshold', 1);
  const breakerCooldownMs = checkCount(options.breakerCooldownMs, 30_000, 'breakerCooldownMs', 0);
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));
  const fetchImpl = options.fetch;
  const signerOption = options.signer;
  const signerFor: WebhookSignerForConfig = typeof signerOption === 'function' ? signerOption : () => signerOption;

  const destinations = new Map<string, Destination>();
  /** Attempts in flight, all destinations. */
  let active = 0;
  /** Deliveries waiting for their first attempt, all destinations. */
  let waiting = 0;
  /** Deliveries not finished, all destinations (waiting, in flight or between attempts). */
  let unfinished = 0;
  let closed = false;
  let idleWaiters: (() => void)[] = [];

  const emit = (event: PushDeliveryEvent) => {
    try {
      options.onEvent?.(event);
    } catch {
      // A faulty observer must not break delivery.
    }
  };

  const backoffOptions = { initialDelayMs: baseDelayMs, maxDelayMs, factor: 2, jitter };
  // A receiver's Retry-After is honoured up to maxDelayMs: a hint of an hour must not park a queue for an hour.
  const backoff = (attempt: number, hinted: number | undefined): number =>
    backoffDelay(backoffOptions, attempt - 1, random, hinted === undefined ? undefined : Math.min(maxDelayMs, hinted));

  /** Serialises the body and the fixed headers once per delivery; `undefined` when the payload cannot be sent. */
  const prepare = (delivery: Delivery): boolean => {
    if (delivery.body !== undefined) return true;
    const { config } = delivery.input;
    try {
      delivery.body = JSON.stringify(delivery.input.payload);
    } catch {
      return false;
    }
    const headers: Record<string, string> = {
      'content-type': 'application/a2a+json',
      [IDEMPOTENCY_KEY_HEADER.toLowerCase()]: delivery.base.deliveryId,
    };
    if (config.authentication?.scheme) {
      const { scheme, credentials } = config.authentication;
      headers.authorization = credentials ? `${scheme} ${credentials}` : scheme;
    }
    if (config.token) headers[PUSH_NOTIFICATION_TOKEN_HEADER.toLowerCase()] = config.token;
    delivery.headers = headers;
    return true;
  };

  type Outcome = { done: true } | { done: false; delayMs: number; failed: boolean };

  /** One attempt; says whether the delivery is finished or when to try again. */
  const attemptOnce = async (delivery: Delivery): Promise<Outcome> => {
    const { config } = delivery.input;
    const { base } = delivery;
    delivery.attempt += 1;
    const attempt = delivery.attempt;
    if (!prepare(delivery)) {
      emit({ type: 'failed', attempts: attempt - 1, reason: 'payload could not be serialised', ...base });
      return { done: true };
    }
    const body = delivery.body as string;
    // DNS may change between attempts, so every attempt is vetted again.
    const check = await checkWebhookUrl(config.url, options.ssrf);
    if (!check.ok) {
      emit({ type: 'refused', reason: check.reason, ...base });
      return { done: true };
    }
    const attemptHeaders = { ...delivery.headers };
    try {
      const signer = signerFor(config);
      if (signer) Object.assign(attemptHeaders, await signer.sign(body, { timestamp: now() }));
    } catch {
      emit({ type: 'failed', attempts: attempt - 1, reason: 'signing failed', ...base });
      return { done: true };
    }
    let response: DeliveryResponse | undefined;
    let failure: string | undefined;
    try {
      const request = { url: config.url, addresses: check.addresses, headers: attemptHeaders, body, timeoutMs, connectTimeoutMs };
      response = fetchImpl ? await fetchDeliver(fetchImpl, request) : await nodeDeliver(request);
    } catch (error) {
      failure = errorText(error);
    }
    if (response && response.status >= 200 && response.status < 300) {
      emit({ type: 'delivered', attempts: attempt, status: response.status, ...base });
      return { done: true };
    }
    const retryable = response === undefined || response.status >= 500 || response.status === 429;
    const reason = response ? `HTTP ${response.status}` : (failure ?? 'network error');
    if (!retryable) {
      emit({ type: 'failed', attempts: attempt, status: response?.status, reason: `${reason} (not retried)`, ...base });
      return { done: true };
    }
    if (attempt >= maxAttempts) {
      emit({
        type: 'failed',
        attempts: attempt,
        ...(response === undefined ? {} : { status: response.status }),
        reason: `${reason} after ${attempt} attempts`,
        ...base,
      });
      return { done: true };
    }
    const delayMs = backoff(attempt, parseRetryAfter(response?.retryAfter, Date.now()));
    emit({ type: 'retrying', attempt, ...(response ? { status: response.status } : { error: reason }), delayMs, ...base });
    return { done: false, delayMs, failed: true };
  };

  const settleIdle = () => {
    if (unfinished === 0) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  };

  const finishHead = (destination: Destination, lane: Lane): void => {
    lane.items.shift();
    destination.queued -= 1;
    unfinished -= 1;
    if (lane.items.length === 0) destination.lanes.delete(lane.key);
    if (destination.queued === 0 && destination.active === 0 && destination.breaker === 'closed') destinations.delete(destination.origin);
  };

  /** Counts an attempt's result towards the destination's breaker. */
  const recordResult = (destination: Destination, failed: boolean): void => {
    if (!failed) {
      destination.failures = 0;
      destination.breaker = 'closed';
      return;
    }
    destination.failures += 1;
    if (destination.breaker === 'half-open' || destination.failures >= breakerThreshold) {
      destination.breaker = 'open';
      sleep(breakerCooldownMs).then(
        () => {
          destination.breaker = 'half-open';
          // Nothing left to probe with: forget the destination (a later delivery starts closed).
          if (destination.queued === 0) destinations.delete(destination.origin);
          pump();
        },
        () => undefined,
      );
    }
  };

  const run = (destination: Destination, lane: Lane): void => {
    const delivery = lane.items[0] as Delivery;
    if (delivery.attempt === 0) waiting -= 1;
    lane.busy = true;
    lane.inFlight = true;
    active += 1;
    destination.active += 1;
    attemptOnce(delivery)
      .catch((): Outcome => {
        emit({ type: 'failed', attempts: delivery.attempt, reason: 'internal error', ...delivery.base });
        return { done: true };
      })
      .then((outcome) => {
        active -= 1;
        destination.active -= 1;
        lane.inFlight = false;
        // A refusal or a 4xx says nothing about the receiver's health; a 5xx, 429 or network error does.
        recordResult(destination, !outcome.done && outcome.failed);
        if (!outcome.done && closed) {
          // Closing: no more attempts.
          emit({ type: 'failed', attempts: delivery.attempt, reason: 'sender closed before the retry', ...delivery.base });
          lane.busy = false;
          finishHead(destination, lane);
        } else if (outcome.done) {
          lane.busy = false;
          finishHead(destination, lane);
        } else {
          // The slot is free while the retry waits; the lane stays blocked, so order holds.
          sleep(outcome.delayMs).then(
            () => {
              lane.busy = false;
              pump();
            },
            () => {
              lane.busy = false;
              pump();
            },
          );
        }
        pump();
        settleIdle();
      });
  };

  /** Starts every attempt that may start now: per destination, lanes whose head is not busy. */
  const pump = (): void => {
    if (closed) return;
    for (const destination of destinations.values()) {
      if (active >= maxConcurrency) return;
      if (destination.breaker === 'open') continue;
      for (const lane of destination.lanes.values()) {
        if (active >= maxConcurrency || destination.active >= perDestination) break;
        // Half-open: one probe attempt at a time.
        if (destination.breaker === 'half-open' && destination.active > 0) break;
        if (lane.busy || lane.items.length === 0) continue;
        run(destination, lane);
      }
    }
  };

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
      const configId = input.config.id ? { configId: input.config.id } : {};
      if (closed) {
        emit({ type: 'dropped', reason: 'closed', taskId: input.taskId, ...configId });
        return;
      }
      const origin = destinationOf(input.config.url);
      let destination = destinations.get(origin);
      const queuedThere = destination === undefined ? 0 : destination.queued - destination.active;
      if (
        (waiting >= maxQueue && active >= maxConcurrency) ||
        waiting >= maxQueue + maxConcurrency ||
        queuedThere >= maxQueuePerDestination + perDestination
      ) {
        emit({ type: 'dropped', reason: 'queue-full', taskId: input.taskId, ...configId });
        return;
      }
      if (destination === undefined) {
        destination = { origin, lanes: new Map(), active: 0, queued: 0, failures: 0, breaker: 'closed' };
        destinations.set(origin, destination);
      }
      const laneKey = `${input.taskId}\u0000${input.config.id ?? input.config.url}`;
      let lane = destination.lanes.get(laneKey);
      if (lane === undefined) {
        lane = { key: laneKey, items: [], busy: false, inFlight: false };
        destination.lanes.set(laneKey, lane);
      }
      lane.items.push({
        input,
        base: { taskId: input.taskId, deliveryId: randomUUID(), ...configId },
        attempt: 0,
        body: undefined,
        headers: undefined,
      });
      destination.queued += 1;
      waiting += 1;
      unfinished += 1;
      pump();
    },
    flush,
    close() {
      closed = true;
      // Shutdown is bounded: only attempts in flight finish (each within timeoutMs); what has not
      // been attempted yet is dropped, and a delivery waiting for its retry ends failed.
      for (const destination of [...destinations.values()]) {
        for (const lane of [...destination.lanes.values()]) {
          const keep = lane.inFlight ? 1 : 0;
          for (const delivery of lane.items.splice(keep)) {
            if (delivery.attempt === 0) {
              waiting -= 1;
              emit({
                type: 'dropped',
                reason: 'closed',
                taskId: delivery.base.taskId,
                ...(delivery.base.configId ? { configId: delivery.base.configId } : {}),
              });
            } else {
              emit({ type: 'failed', attempts: delivery.attempt, reason: 'sender closed before the retry', ...delivery.base });
            }
            destination.queued -= 1;
            unfinished -= 1;
          }
          if (lane.items.length === 0) destination.lanes.delete(lane.key);
        }
        if (destination.queued === 0 && destination.active === 0) destinations.delete(destination.origin);
      }
      settleIdle();
      return flush();
    },
  };
}
