import { createCircuitBreaker } from '@a2aplane/a2a-types';
import { coalesce, type Delivery, type Lane, laneKey, type Registration, registrationKey, waitingIn } from './lanes.js';
import type { PushNotifyInput } from './push-types.js';

interface DestinationQueueOptions {
  maxPendingPerTask: number;
  maxQueue: number;
  /** The breaker of each registration. */
  breaker: { failureThreshold: number; cooldownMs: number; clock: () => number };
  /** A waiting delivery was folded into `into` (the lane's newest). */
  onFolded(delivery: Delivery, into: Delivery): void;
}

/**
 * The deliveries waiting and running, by registration and lane, with the counts the sender
 * needs; coalesces a lane when it, or the whole queue, holds too many (`lanes.ts`).
 */
export function createDestinationQueue(options: DestinationQueueOptions) {
  const { maxPendingPerTask, maxQueue, onFolded } = options;
  const registrations = new Map<string, Registration>();
  const counts = {
    /** Deliveries waiting for their first attempt. */
    waiting: 0,
    /** Deliveries not finished (waiting, in flight or between attempts). */
    unfinished: 0,
  };

  const registrationFor = (input: PushNotifyInput): Registration => {
    const key = registrationKey(input.config.url, input.tenant ?? input.config.tenant ?? '');
    let registration = registrations.get(key);
    if (registration === undefined) {
      registration = { key, lanes: new Map(), active: 0, breaker: createCircuitBreaker(options.breaker), waking: false };
      registrations.set(key, registration);
    }
    return registration;
  };

  /** Folds the lane's waiting deliveries into its newest; returns the newest when anything was folded. */
  const fold = (lane: Lane): Delivery | undefined => {
    const folded = coalesce(lane);
    if (folded.length === 0) return undefined;
    const newest = lane.items.at(-1) as Delivery;
    counts.waiting -= folded.length;
    counts.unfinished -= folded.length;
    for (const delivery of folded) onFolded(delivery, newest);
    return newest;
  };

  /**
   * A registration with nothing to send is forgotten, breaker included (a later delivery starts
   * closed), except while its open breaker waits out the cooldown: so the map holds only
   * registrations with work, plus dead ones for one cooldown.
   */
  const forgetIfIdle = (registration: Registration): void => {
    if (registration.lanes.size === 0 && registration.active === 0 && !registration.waking) registrations.delete(registration.key);
  };

  return {
    counts,
    registrations: () => registrations.values(),
    forgetIfIdle,
    /** Queues a delivery in its lane; `refolded`: the lane's newest delivery, when waiting ones were folded into it. */
    add(input: PushNotifyInput, deliveryId: string, persisted: boolean): { delivery: Delivery; refolded: Delivery | undefined } {
      const registration = registrationFor(input);
      const key = laneKey(input);
      let lane = registration.lanes.get(key);
      if (lane === undefined) {
        lane = { key, registration, items: [], busy: false, inFlight: false, latest: undefined };
        registration.lanes.set(key, lane);
      }
      if (input.task !== undefined) lane.latest = input.task;
      const delivery: Delivery = {
        input,
        base: { taskId: input.taskId, deliveryId, ...(input.config.id ? { configId: input.config.id } : {}) },
        attempt: 0,
        body: undefined,
        headers: undefined,
        ready: true,
        persisted,
      };
      lane.items.push(delivery);
      counts.waiting += 1;
      counts.unfinished += 1;
      const over = waitingIn(lane) > maxPendingPerTask || counts.waiting > maxQueue;
      return { delivery, refolded: over ? fold(lane) : undefined };
    },
    /** The lane's head starts an attempt. */
    start(lane: Lane): Delivery {
      const delivery = lane.items[0] as Delivery;
      if (delivery.attempt === 0) counts.waiting -= 1;
      lane.busy = true;
      lane.inFlight = true;
      lane.registration.active += 1;
      return delivery;
    },
    /** The lane's head attempt ended. */
    stop(lane: Lane): void {
      lane.inFlight = false;
      lane.registration.active -= 1;
    },
    /** The lane's head delivery ended; the lane and its registration go when empty. */
    finishHead(lane: Lane): Delivery {
      const delivery = lane.items.shift() as Delivery;
      lane.busy = false;
      counts.unfinished -= 1;
      if (lane.items.length === 0) lane.registration.lanes.delete(lane.key);
      forgetIfIdle(lane.registration);
      return delivery;
    },
    /** Takes out every delivery but those with an attempt in flight (closing). */
    drain(each: (delivery: Delivery) => void): void {
      for (const registration of [...registrations.values()]) {
        for (const lane of [...registration.lanes.values()]) {
          for (const delivery of lane.items.splice(lane.inFlight ? 1 : 0)) {
            if (delivery.attempt === 0) counts.waiting -= 1;
            counts.unfinished -= 1;
            each(delivery);
          }
          if (lane.items.length === 0) registration.lanes.delete(lane.key);
        }
        if (registration.lanes.size === 0 && registration.active === 0) registrations.delete(registration.key);
      }
    },
  };
}
