import type { AttemptOutcome } from './delivery-attempt.js';
import type { Registration } from './lanes.js';

/**
 * May the registration take another attempt now? `probe`: the one attempt a half-open breaker
 * admits (taken by this call). `undefined`: not now (open, or its probe is out).
 */
export function admit(registration: Registration): { probe: boolean } | undefined {
  const { breaker } = registration;
  const probe = breaker.state() === 'half-open';
  return breaker.canRequest() ? { probe } : undefined;
}

/**
 * What an attempt tells the registration's breaker. A delivery that used every attempt, or a
 * failed probe, counts as a failure; a retry still to come does not (the receiver may be
 * recovering: 503, 503, 200 must not open it), and a refusal or a 4xx says nothing. Returns
 * whether the breaker is now open (the caller then waits out the cooldown).
 */
export function recordHealth(registration: Registration, outcome: AttemptOutcome, probe: boolean): boolean {
  const { breaker } = registration;
  if (outcome.done && outcome.health === 'up') breaker.recordSuccess();
  else if ((outcome.done && outcome.health === 'down') || (!outcome.done && probe)) breaker.recordFailure();
  else if (probe) breaker.releaseProbe();
  return !breaker.isAvailable();
}

/** Once per open breaker: `then` runs after the cooldown (`wait`), when the breaker admits a probe. */
export function waitOutCooldown(registration: Registration, wait: () => Promise<void>, then: () => void): void {
  if (registration.waking) return;
  registration.waking = true;
  const wake = () => {
    registration.waking = false;
    then();
  };
  wait().then(wake, wake);
}
