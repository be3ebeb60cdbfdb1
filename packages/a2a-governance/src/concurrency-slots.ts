import type { ConcurrencySlots, SlotGrant, SlotLease } from './task-policy.js';

/** A held in-memory slot: the counter it holds one of. */
class MemorySlotLease {
  released = false;
  constructor(readonly key: string) {}
}

/**
 * `ConcurrencySlots` counted in this process: the reference implementation of the seam (the
 * contract suite runs it). `TaskPolicyEngine` counts its own in-process slots without this seam
 * (synchronous and allocation-free per task); pass this, or a shared backend such as
 * `createRedisConcurrencySlots` of `@a2aplane/a2a-redis`, as its `slots`.
 */
export function createInMemoryConcurrencySlots(): ConcurrencySlots & { acquire(caller: string, skill: string, max: number): SlotGrant } {
  const active = new Map<string, number>();
  return {
    acquire(caller, skill, max) {
      if (typeof caller !== 'string' || typeof skill !== 'string') throw new TypeError('expected caller and skill to be strings');
      if (!(max >= 0)) throw new RangeError(`expected max to be >= 0, got ${String(max)}`);
      // JSON keeps (caller, skill) pairs apart whatever characters they hold.
      const key = JSON.stringify([caller, skill]);
      const held = active.get(key) ?? 0;
      if (held >= max) return { ok: false, active: held };
      active.set(key, held + 1);
      return { ok: true, lease: new MemorySlotLease(key) };
    },
    release(lease: SlotLease) {
      if (!(lease instanceof MemorySlotLease) || lease.released) return;
      lease.released = true;
      const held = (active.get(lease.key) ?? 1) - 1;
      if (held <= 0) active.delete(lease.key);
      else active.set(lease.key, held);
    },
  };
}
