import { backoffDelay, parseRetryAfter } from '@a2aplane/a2a-types';
import type { Delivery } from './lanes.js';
import {
  IDEMPOTENCY_KEY_HEADER,
  PUSH_NOTIFICATION_TOKEN_HEADER,
  type PushDeliveryEvent,
  type WebhookSignerForConfig,
} from './push-types.js';
import { type DeliveryResponse, DeliveryTimeoutError, fetchDeliver, nodeDeliver } from './transport.js';
import { checkWebhookUrl, type WebhookUrlOptions } from './webhook-url.js';

/**
 * What one attempt says: the delivery ended, or it may be tried again after `delayMs` (the receiver
 * failed it). `health` is what an ended one says of the receiver: up (delivered), down (every
 * attempt failed on 5xx, 429, network errors or timeouts) or nothing (a refusal, a 4xx, our own error).
 */
export type AttemptOutcome = { done: true; health: 'up' | 'down' | 'unknown' } | { done: false; delayMs: number };

interface AttemptOptions {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  jitter: number;
  timeoutMs: number;
  connectTimeoutMs: number;
  random: () => number;
  now: () => number;
  fetch: typeof fetch | undefined;
  signerFor: WebhookSignerForConfig;
  ssrf: WebhookUrlOptions | undefined;
  emit: (event: PushDeliveryEvent) => void;
}

function errorText(error: unknown): string {
  if (error instanceof DeliveryTimeoutError) return error.message;
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : 'network error';
}

/** Serialises the body and the fixed headers once per delivery; false when the payload cannot be sent. */
function prepare(delivery: Delivery): boolean {
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
}

/**
 * Makes the function that runs one attempt of a delivery (spec §4.3.3, §13.2): SSRF check, signing,
 * the POST, and the verdict, with exponential backoff and jitter on 5xx / 429 / network errors.
 */
export function createAttempt(options: AttemptOptions): (delivery: Delivery) => Promise<AttemptOutcome> {
  const { maxAttempts, maxDelayMs, emit } = options;
  const backoffOptions = { initialDelayMs: options.baseDelayMs, maxDelayMs, factor: 2, jitter: options.jitter };
  // A receiver's Retry-After is honoured up to maxDelayMs: a hint of an hour must not park a queue for an hour.
  const backoff = (attempt: number, hinted: number | undefined): number =>
    backoffDelay(backoffOptions, attempt - 1, options.random, hinted === undefined ? undefined : Math.min(maxDelayMs, hinted));

  return async (delivery) => {
    const { config } = delivery.input;
    const { base } = delivery;
    delivery.attempt += 1;
    const attempt = delivery.attempt;
    if (!prepare(delivery)) {
      emit({ type: 'failed', attempts: attempt - 1, reason: 'payload could not be serialised', ...base });
      return { done: true, health: 'unknown' };
    }
    const body = delivery.body as string;
    // DNS may change between attempts, so every attempt is vetted again.
    const check = await checkWebhookUrl(config.url, options.ssrf);
    if (!check.ok) {
      emit({ type: 'refused', reason: check.reason, ...base });
      return { done: true, health: 'unknown' };
    }
    const attemptHeaders = { ...delivery.headers };
    try {
      const signer = options.signerFor(config);
      if (signer) Object.assign(attemptHeaders, await signer.sign(body, { timestamp: options.now() }));
    } catch {
      emit({ type: 'failed', attempts: attempt - 1, reason: 'signing failed', ...base });
      return { done: true, health: 'unknown' };
    }
    let response: DeliveryResponse | undefined;
    let failure: string | undefined;
    try {
      const { timeoutMs, connectTimeoutMs } = options;
      const request = { url: config.url, addresses: check.addresses, headers: attemptHeaders, body, timeoutMs, connectTimeoutMs };
      response = options.fetch ? await fetchDeliver(options.fetch, request) : await nodeDeliver(request);
    } catch (error) {
      failure = errorText(error);
    }
    if (response && response.status >= 200 && response.status < 300) {
      emit({ type: 'delivered', attempts: attempt, status: response.status, ...base });
      return { done: true, health: 'up' };
    }
    const retryable = response === undefined || response.status >= 500 || response.status === 429;
    const reason = response ? `HTTP ${response.status}` : (failure ?? 'network error');
    if (!retryable) {
      emit({ type: 'failed', attempts: attempt, status: response?.status, reason: `${reason} (not retried)`, ...base });
      return { done: true, health: 'unknown' };
    }
    if (attempt >= maxAttempts) {
      const status = response === undefined ? {} : { status: response.status };
      emit({ type: 'failed', attempts: attempt, ...status, reason: `${reason} after ${attempt} attempts`, ...base });
      return { done: true, health: 'down' };
    }
    const delayMs = backoff(attempt, parseRetryAfter(response?.retryAfter, Date.now()));
    emit({ type: 'retrying', attempt, ...(response ? { status: response.status } : { error: reason }), delayMs, ...base });
    return { done: false, delayMs };
  };
}
