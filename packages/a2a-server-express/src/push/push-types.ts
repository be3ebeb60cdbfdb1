import type { StreamResponse, Task, TaskPushNotificationConfig } from '@a2aplane/a2a-types';
import type { PushSender as ServerPushSender, WebhookUrlCheck } from '../core/types.js';
import type { PushOutbox } from './push-outbox.js';
import type { WebhookUrlOptions } from './webhook-url.js';

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

export interface PushEventBase {
  taskId: string;
  configId?: string;
  deliveryId: string;
}

/**
 * The delivery log: every notification ends in exactly one of `delivered`, `failed`, `refused`,
 * `coalesced` (folded into the newer notification `into`, which carries the task's latest state)
 * or `dropped` (only when the sender is closed).
 */
export type PushDeliveryEvent =
  | ({ type: 'delivered'; attempts: number; status: number } & PushEventBase)
  | ({ type: 'retrying'; attempt: number; status?: number; error?: string; delayMs: number } & PushEventBase)
  | ({ type: 'failed'; attempts: number; status?: number; reason: string } & PushEventBase)
  | ({ type: 'refused'; reason: string } & PushEventBase)
  | ({ type: 'coalesced'; into: string } & PushEventBase)
  | { type: 'dropped'; reason: 'closed' | 'handed-over'; taskId: string; configId?: string; deliveryId?: string };

/** Picks the signer of one push config (say, HMAC keyed by the config's own secret); `undefined` sends it unsigned. */
export type WebhookSignerForConfig = (config: TaskPushNotificationConfig) => WebhookSigner | undefined;

export interface PushSenderOptions {
  /**
   * Signs every attempt. Default: `hmac-sha256` keyed per config with the secret its receiver
   * supplied (`pushConfigSecret`: the config's `token`, else its `authentication` credentials); a
   * config with neither goes unsigned. A `WebhookSigner` signs every delivery with one key (Ed25519:
   * receivers check the agent's public key); a function picks a signer per config. `false` sends
   * every delivery unsigned (the explicit opt-out).
   */
  signer?: WebhookSigner | WebhookSignerForConfig | false;
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
  /** Attempts in flight at once, all registrations together (default 64). */
  maxConcurrency?: number;
  /** Attempts in flight at once to one registration (origin + path + tenant; default 4). */
  maxConcurrencyPerDestination?: number;
  /**
   * Notifications waiting, all tasks together (default 10 000). Beyond it a task's waiting
   * notifications are coalesced into its latest state; nothing is dropped.
   */
  maxQueue?: number;
  /**
   * Notifications waiting for one (task, push config) before they are coalesced into the newest
   * one, which then carries the task's latest state (default 1 000, the event bus's replay log per task).
   */
  maxPendingPerTask?: number;
  /**
   * Deliveries in a row to one registration that fail for good (every attempt used) before its
   * circuit breaker opens (default 3). While a receiver delivers some notifications, none opens it.
   */
  breakerThreshold?: number;
  /** How long an open breaker holds a registration's deliveries before one probe attempt (default 10 000 ms). */
  breakerCooldownMs?: number;
  /**
   * Where pending deliveries are kept until they end (default: in memory, this process only). A
   * shared one (`createRedisPushOutbox` of `@a2aplane/a2a-redis`) lets another replica deliver
   * what a dead one left.
   */
  outbox?: PushOutbox;
  /** How long this replica's claim on its pending deliveries lasts without renewal (default 30 000 ms). */
  outboxLeaseMs?: number;
  ssrf?: WebhookUrlOptions;
  onEvent?: (event: PushDeliveryEvent) => void;
  random?: () => number;
  /** Waits between attempts; injectable for tests. */
  sleep?: (ms: number) => Promise<void>;
  /** Seconds since the epoch, passed to the signer; defaults to the wall clock. */
  now?: () => number;
  /** Milliseconds since some epoch, for the breakers' cooldowns; defaults to `Date.now`. */
  clock?: () => number;
}

export interface PushNotifyInput {
  config: TaskPushNotificationConfig;
  payload: StreamResponse;
  taskId: string;
  /** The task's tenant: part of the registration that breakers and backoff are keyed by. */
  tenant?: string;
  /** The task after this event: what waiting notifications are coalesced into. */
  task?: Task;
}

/** Counters since the sender was made, and what is pending now. */
export interface PushSenderStats {
  /** Notifications waiting for their first attempt. */
  pending: number;
  /** Attempts running now. */
  inFlight: number;
  delivered: number;
  failed: number;
  refused: number;
  coalesced: number;
  dropped: number;
}

/** The server's push seam (`PushSender` of the core), with what this sender adds. */
export interface PushSender extends ServerPushSender {
  /** Queues one delivery; never throws for delivery problems (they are reported through `onEvent`). */
  notify(input: PushNotifyInput): void;
  /** Resolves once every queued and running delivery has finished. */
  flush(): Promise<void>;
  /**
   * Stops accepting deliveries and waits only for the attempts in flight; the rest go back to the
   * outbox for another replica (`dropped`, `handed-over`) or, without one, end `dropped` / `failed`.
   */
  close(): Promise<void>;
  /** `checkWebhookUrl` with this sender's `ssrf` options: what each delivery must pass. */
  checkUrl: WebhookUrlCheck;
  stats(): PushSenderStats;
}
