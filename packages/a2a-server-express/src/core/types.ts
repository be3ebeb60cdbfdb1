import type { StreamResponse, Task, TaskPushNotificationConfig } from '@a2aplane/a2a-types';

// Defined once, with the authenticator that produces them; tasks belong to the principal
// (and tenant) that created them.
export type { Authenticator, AuthRequest as AuthenticationRequest, Principal } from '../auth/types.js';

/** A rate limiter's verdict for one request. */
export type RateLimitVerdict = { ok: true } | { ok: false; retryAfterSeconds: number };

/**
 * Admits or refuses one request for a key. In-process limiters answer synchronously (the server
 * then never awaits); a shared one (`createRedisRateLimiter` of `@a2aplane/a2a-redis`) returns a
 * promise, and a rejected promise fails the request with its error.
 */
export interface RateLimiter {
  take(key: string): RateLimitVerdict | Promise<RateLimitVerdict>;
}

/** Fire-and-forget push delivery with its own retries. */
export interface PushSender {
  /** `tenant`: the task's; `task`: the task after this event (a sender may coalesce waiting notifications into it). */
  notify(input: { config: TaskPushNotificationConfig; payload: StreamResponse; taskId: string; tenant?: string; task?: Task }): void;
  close(): Promise<void>;
  /**
   * The URL check this sender applies before each delivery. The server runs it when a config is
   * created or sent inline (unless given its own `checkWebhookUrl`), so a URL the sender would
   * refuse is refused up front instead of failing silently later.
   */
  checkUrl?: WebhookUrlCheck;
}

/** Checks a webhook URL when a push config is created (an SSRF guard). */
export type WebhookUrlCheck = (url: string) => Promise<{ ok: true } | { ok: false; reason: string }>;

/** One event of a server stream: `id` is the SSE event id (the event bus's id of the event, opaque). */
export interface StreamEvent {
  id: string;
  data: StreamResponse;
}
