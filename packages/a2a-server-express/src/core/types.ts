import type { A2AError, StreamResponse, Task, TaskPushNotificationConfig } from '@a2aplane/a2a-types';
import type { AuthRequest, Principal } from '../auth/types.js';

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

/** A binding-neutral request. */
export interface CoreRequest {
  /** The A2A method name (v1.0). */
  method: string;
  /** Untrusted params; the core validates them. */
  params: unknown;
  /** Raw `A2A-Version` (header or query); `undefined` when the client sent none. */
  version?: string | undefined;
  /** Raw `A2A-Extensions` values. */
  extensions?: string | readonly string[] | undefined;
  /** An already authenticated principal; otherwise `auth` goes to the authenticator. */
  principal?: Principal | undefined;
  auth?: AuthRequest | undefined;
  /** Rate-limit key for anonymous callers (such as the remote address). */
  clientKey?: string | undefined;
  /** The `Last-Event-ID` of a SubscribeToTask. */
  lastEventId?: string | undefined;
  /** Aborts when the caller goes away: a blocking SendMessage stops waiting (the task goes on). */
  signal?: AbortSignal | undefined;
}

export type CoreResponse =
  | { kind: 'result'; result: unknown }
  | { kind: 'stream'; events: AsyncIterable<StreamEvent> }
  | { kind: 'error'; error: A2AError };
