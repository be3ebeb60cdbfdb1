/** Tasks holding a slot for one (caller, skill); released admissions decrement it directly. */
interface Slot {
  active: number;
}

/** One caller's policy (resolved once) and its slots per skill. */
interface CallerSlots<P> {
  readonly policy: P;
  readonly skills: Map<string, Slot>;
}

/** Idle (zero) slots kept for reuse before a sweep drops them; a sweep runs once they are also half of all slots. */
const IDLE_SLOTS_BEFORE_SWEEP = 1024;

/**
 * The concurrency slots `TaskPolicyEngine` counts in this process, synchronously and without the
 * `ConcurrencySlots` seam. The counter of a (caller, skill) stays allocated while idle so a busy
 * pair costs no map insert or delete per task; idle ones are dropped in batches, so memory stays
 * bounded by the pairs in use.
 */
export class LocalSlots<P> {
  private readonly callers = new Map<string, CallerSlots<P>>();
  /** Slot counters allocated, and how many of them are at zero. */
  private slotCount = 0;
  private idleSlots = 0;

  /** `resolve` gives a caller's policy, kept with its slots from its first task on. */
  constructor(private readonly resolve: (caller: string) => P) {}

  /** The caller's policy and slots, made on its first task. */
  caller(caller: string): CallerSlots<P> {
    let entry = this.callers.get(caller);
    if (entry === undefined) {
      entry = { policy: this.resolve(caller), skills: new Map() };
      this.callers.set(caller, entry);
    }
    return entry;
  }

  /** The counter of `skill` in `entry`, made (idle) on first use. */
  slot(entry: CallerSlots<P>, skill: string): Slot {
    let slot = entry.skills.get(skill);
    if (slot === undefined) {
      slot = { active: 0 };
      entry.skills.set(skill, slot);
      this.slotCount++;
      this.idleSlots++;
    }
    return slot;
  }

  /** Takes one slot of the counter; the caller checked the limit. */
  take(slot: Slot): void {
    if (slot.active === 0) this.idleSlots--;
    slot.active++;
  }

  /** Gives a slot back; admissions call it once, on release. One function per engine, shared by its admissions. */
  readonly free = (slot: Slot): void => {
    if (--slot.active === 0) {
      this.idleSlots++;
      this.sweepIfIdle();
    }
  };

  /** Tasks holding a slot for (caller, skill). */
  active(caller: string, skill: string): number {
    return this.callers.get(caller)?.skills.get(skill)?.active ?? 0;
  }

  /** Drops idle slot counters (and callers left with none) once they are many and at least half of all. */
  sweepIfIdle(): void {
    if (this.idleSlots < IDLE_SLOTS_BEFORE_SWEEP || this.idleSlots * 2 < this.slotCount) return;
    for (const [caller, entry] of this.callers) {
      for (const [skill, slot] of entry.skills) {
        if (slot.active === 0) {
          entry.skills.delete(skill);
          this.slotCount--;
          this.idleSlots--;
        }
      }
      if (entry.skills.size === 0) this.callers.delete(caller);
    }
  }
}
