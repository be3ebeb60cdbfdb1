import type { CircuitBreaker, Task } from '@a2aplane/a2a-types';
import type { PushEventBase, PushNotifyInput } from './push-types.js';

/** One notification to one push config, across its attempts. */
export interface Delivery {
  input: PushNotifyInput;
  base: PushEventBase;
  /** Attempts made so far. */
  attempt: number;
  body: string | undefined;
  headers: Record<string, string> | undefined;
  /** Stored in the outbox (or there is none): it may be attempted. */
  ready: boolean;
  /** The outbox holds it, so its end must be acknowledged there. */
  persisted: boolean;
}

/** The deliveries of one (task, push config), in order: the next starts when the one before it is done. */
export interface Lane {
  key: string;
  registration: Registration;
  items: Delivery[];
  /** An attempt of the head delivery is running, or its retry delay is running. */
  busy: boolean;
  /** An attempt of the head delivery is running. */
  inFlight: boolean;
  /** The task as of the newest notification: what waiting ones are coalesced into. */
  latest: Task | undefined;
}

/**
 * Where a delivery goes as far as isolation is concerned: one push registration (origin + path +
 * tenant). It has its own lanes, concurrency and circuit breaker, so a failing endpoint of one
 * tenant never holds back another tenant's endpoint on the same host.
 */
export interface Registration {
  key: string;
  lanes: Map<string, Lane>;
  /** Attempts in flight to this registration. */
  active: number;
  breaker: CircuitBreaker;
  /** A wake-up after the breaker's cooldown is scheduled. */
  waking: boolean;
}

/** The isolation key of a push config: origin and path of its URL, and the task's tenant. */
export function registrationKey(url: string, tenant: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}\u0000${tenant}`;
  } catch {
    return `invalid\u0000${tenant}`;
  }
}

/** The lane of a notification: one per task and push config within a registration. */
export const laneKey = (input: PushNotifyInput): string => `${input.taskId}\u0000${input.config.id ?? input.config.url}`;

/** Notifications of the lane that wait for their first attempt (a started head is not one). */
export function waitingIn(lane: Lane): number {
  const head = lane.items[0];
  return head !== undefined && head.attempt > 0 ? lane.items.length - 1 : lane.items.length;
}

/**
 * Folds the lane's waiting notifications into the newest: it then carries the task's latest state
 * (`{ task }`), so nothing the receiver needs is lost, the final status included. A head already
 * attempted stays as it is (its retries keep their idempotency key). Returns the folded deliveries.
 */
export function coalesce(lane: Lane): Delivery[] {
  const first = lane.items[0] !== undefined && (lane.items[0] as Delivery).attempt > 0 ? 1 : 0;
  if (lane.items.length - first < 2) return [];
  const newest = lane.items.at(-1) as Delivery;
  const folded = lane.items.splice(first, lane.items.length - first - 1);
  if (lane.latest !== undefined) {
    newest.input = { ...newest.input, payload: { task: lane.latest } };
    newest.body = undefined;
    newest.headers = undefined;
  }
  return folded;
}
