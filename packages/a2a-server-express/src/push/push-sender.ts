import { randomUUID } from 'node:crypto';
import type { StreamResponse, TaskPushNotificationConfig } from '@a2aplane/a2a-types';
import { type DeliveryResponse, DeliveryTimeoutError, fetchDeliver, nodeDeliver } from './transport.js';
import { checkWebhookUrl, type WebhookUrlOptions } from './webhook-url.js';

/**
 * Signs a webhook body. Structurally the `WebhookSigner` of `@a2aplane/a2a-identity`
 * (`createHmacWebhookSigner`, `createEd25519WebhookSigner`), kept local so that package stays an optional peer.
 */
export interface WebhookSigner {
  readonly algorithm: string;
  sign(
    body: string | Uint8Array,
    options: { timestamp: number },
  ): Record<string, string> | Promise<Record<string, string>>;
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

export interface PushSenderOptions {
  signer?: WebhookSigner;
  /** Use this instead of the built-in node:http(s) transport. Note: it resolves DNS itself, so it is not pinned to vetted addresses. */
  fetch?: typeof fetch;
  /** Attempts per delivery, first included (default 5). */
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Fraction of the delay randomised either way (default 0.2). */
  jitter?: number;
  /** Per-attempt time limit (default 10000; spec §4.3.3 recommends 10-30 s). */
  timeoutMs?: number;
  maxConcurrency?: number;
  /** Deliveries waiting for a free slot before new ones are dropped (default 1000). */
  maxQueue?: number;
  ssrf?: WebhookUrlOptions;
  onEvent?: (event: PushDeliveryEvent) => void;
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Seconds since the epoch, passed to the signer; defaults to the wall clock. */
  now?: () => number;
}

export interface PushNotifyInput {
  config: TaskPushNotificationConfig;
  payload: StreamResponse;
  taskId: string;
}

export interface PushSender {
  /** Queues one delivery; never throws for delivery problems (they are reported through `onEvent`). */
  notify(input: PushNotifyInput): void;
  /** Resolves once every queued and running delivery has finished. */
  flush(): Promise<void>;
  /** Stops accepting deliveries and waits for the ones in flight. */
  close(): Promise<void>;
}

function checkCount(value: number | undefined, fallback: number, name: string, min: number): number {
  const resolved = value ?? fallback;
  if (typeof resolved !== 'number' || !Number.isFinite(resolved) || resolved < min) {
    throw new RangeError(`expected ${name} to be a number >= ${min}, got ${String(value)}`);
  }
  return resolved;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Retry-After as seconds or an HTTP date, in milliseconds; undefined when absent or unreadable. */
function retryAfterMs(header: string | undefined, nowMs: number): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

function errorText(error: unknown): string {
  if (error instanceof DeliveryTimeoutError) return error.message;
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : 'network error';
}

/**
 * Delivers push notifications (spec §3.5.3, §4.3.3, §13.2): POST of the StreamResponse as JSON,
 * with the config's credentials, an optional signature, an SSRF check before every attempt,
 * exponential backoff with jitter on 5xx / 429 / network errors, and bounded concurrency and queue.
 */
export function createPushSender(options: PushSenderOptions = {}): PushSender {
  const maxAttempts = checkCount(options.maxAttempts, 5, 'maxAttempts', 1);
  const baseDelayMs = checkCount(options.baseDelayMs, 200, 'baseDelayMs', 0);
  const maxDelayMs = checkCount(options.maxDelayMs, 10_000, 'maxDelayMs', 0);
  const jitter = checkCount(options.jitter, 0.2, 'jitter', 0);
  const timeoutMs = checkCount(options.timeoutMs, 10_000, 'timeoutMs', 1);
  const maxConcurrency = checkCount(options.maxConcurrency, 16, 'maxConcurrency', 1);
  const maxQueue = checkCount(options.maxQueue, 1000, 'maxQueue', 0);
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? (() => Math.floor(Date.now() / 1000));
  const fetchImpl = options.fetch;

  const queue: PushNotifyInput[] = [];
  let active = 0;
  let closed = false;
  let idleWaiters: (() => void)[] = [];

  const emit = (event: PushDeliveryEvent) => {
    try {
      options.onEvent?.(event);
    } catch {
      // A faulty observer must not break delivery.
    }
  };

  const backoff = (attempt: number, hinted: number | undefined): number => {
    const exponential = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
    const spread = exponential * jitter * (2 * random() - 1);
    const delay = Math.max(0, Math.round(exponential + spread));
    return hinted === undefined ? delay : Math.min(maxDelayMs, Math.max(delay, hinted));
  };

  const deliver = async (input: PushNotifyInput): Promise<void> => {
    const { config, taskId } = input;
    const base: EventBase = { taskId, deliveryId: randomUUID(), ...(config.id ? { configId: config.id } : {}) };
    const body = JSON.stringify(input.payload);
    const headers: Record<string, string> = {
      'content-type': 'application/a2a+json',
      [IDEMPOTENCY_KEY_HEADER.toLowerCase()]: base.deliveryId,
    };
    if (config.authentication?.scheme) {
      const { scheme, credentials } = config.authentication;
      headers.authorization = credentials ? `${scheme} ${credentials}` : scheme;
    }
    if (config.token) headers[PUSH_NOTIFICATION_TOKEN_HEADER.toLowerCase()] = config.token;

    let lastStatus: number | undefined;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      // DNS may change between attempts, so every attempt is vetted again.
      const check = await checkWebhookUrl(config.url, options.ssrf);
      if (!check.ok) {
        emit({ type: 'refused', reason: check.reason, ...base });
        return;
      }
      const attemptHeaders = { ...headers };
      if (options.signer) {
        try {
          Object.assign(attemptHeaders, await options.signer.sign(body, { timestamp: now() }));
        } catch {
          emit({ type: 'failed', attempts: attempt - 1, reason: 'signing failed', ...base });
          return;
        }
      }
      let response: DeliveryResponse | undefined;
      let failure: string | undefined;
      try {
        const request = { url: config.url, addresses: check.addresses, headers: attemptHeaders, body, timeoutMs };
        response = fetchImpl ? await fetchDeliver(fetchImpl, request) : await nodeDeliver(request);
      } catch (error) {
        failure = errorText(error);
      }
      if (response && response.status >= 200 && response.status < 300) {
        emit({ type: 'delivered', attempts: attempt, status: response.status, ...base });
        return;
      }
      lastStatus = response?.status;
      const retryable = response === undefined || response.status >= 500 || response.status === 429;
      const reason = response ? `HTTP ${response.status}` : (failure ?? 'network error');
      if (!retryable) {
        emit({ type: 'failed', attempts: attempt, status: response?.status, reason: `${reason} (not retried)`, ...base });
        return;
      }
      if (attempt === maxAttempts) {
        emit({
          type: 'failed',
          attempts: attempt,
          ...(lastStatus === undefined ? {} : { status: lastStatus }),
          reason: `${reason} after ${attempt} attempts`,
          ...base,
        });
        return;
      }
      const delayMs = backoff(attempt, retryAfterMs(response?.retryAfter, Date.now()));
      emit({
        type: 'retrying',
        attempt,
        ...(response ? { status: response.status } : { error: reason }),
        delayMs,
        ...base,
      });
      await sleep(delayMs);
    }
  };

  const settleIdle = () => {
    if (active === 0 && queue.length === 0) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  };

  const pump = () => {
    while (active < maxConcurrency && queue.length > 0) {
      const next = queue.shift() as PushNotifyInput;
      active++;
      deliver(next)
        .catch(() => {
          emit({ type: 'failed', attempts: 0, reason: 'internal error', taskId: next.taskId, deliveryId: '' });
        })
        .finally(() => {
          active--;
          pump();
          settleIdle();
        });
    }
  };

  const flush = (): Promise<void> => {
    if (active === 0 && queue.length === 0) return Promise.resolve();
    return new Promise<void>((resolve) => idleWaiters.push(resolve));
  };

  return {
    notify(input) {
      if (typeof input !== 'object' || input === null || typeof input.config?.url !== 'string') {
        throw new TypeError('expected { config: { url }, payload, taskId }, got an invalid input');
      }
      const configId = input.config.id ? { configId: input.config.id } : {};
      if (closed) {
        emit({ type: 'dropped', reason: 'closed', taskId: input.taskId, ...configId });
        return;
      }
      if (active >= maxConcurrency && queue.length >= maxQueue) {
        emit({ type: 'dropped', reason: 'queue-full', taskId: input.taskId, ...configId });
        return;
      }
      queue.push(input);
      pump();
    },
    flush,
    close() {
      closed = true;
      return flush();
    },
  };
}
