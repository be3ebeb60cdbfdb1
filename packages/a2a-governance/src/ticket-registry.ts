/**
 * In-flight tickets by id and the estimates they reserve. Ids are issued in sequence, so the most
 * recent `capacity` ids live in a ring of typed arrays: no allocation and no hash-table insert or
 * delete per ticket. An in-flight ticket whose slot a new id needs moves to an overflow Map (a
 * long-running task), unless more than half the ring is in flight, in which case the ring doubles.
 */
export class TicketRegistry {
  /** Ticket id per slot; 0 marks a free slot (ids start at 1). */
  private ids = new Float64Array(256);
  private usd = new Float64Array(256);
  private tokens = new Float64Array(256);
  private mask = 255;
  private readonly overflow = new Map<number, { usdNano: number; tokens: number }>();
  size = 0;
  /** The reservation released by the last successful `take`. */
  takenUsdNano = 0;
  takenTokens = 0;

  add(id: number, usdNano: number, tokens: number): void {
    let index = id & this.mask;
    const occupant = this.ids[index]!;
    if (occupant !== 0) {
      // The occupant is the in-flight ticket issued one ring length earlier.
      if ((this.size - this.overflow.size) * 2 > this.ids.length) {
        this.grow();
        index = id & this.mask;
      } else {
        this.overflow.set(occupant, { usdNano: this.usd[index]!, tokens: this.tokens[index]! });
      }
    }
    this.ids[index] = id;
    this.usd[index] = usdNano;
    this.tokens[index] = tokens;
    this.size++;
  }

  /** Adds to the reservation of in-flight ticket `id`; false when it is not in flight. */
  addTo(id: number, usdNano: number, tokens: number): boolean {
    if (!(id > 0)) return false;
    const index = id & this.mask;
    if (this.ids[index] === id) {
      this.usd[index]! += usdNano;
      this.tokens[index]! += tokens;
      return true;
    }
    const entry = this.overflow.get(id);
    if (entry === undefined) return false;
    entry.usdNano += usdNano;
    entry.tokens += tokens;
    return true;
  }

  /** Removes ticket `id`, leaving its reservation in `takenUsdNano` / `takenTokens`; false when it is not in flight. */
  take(id: number): boolean {
    if (!(id > 0)) return false;
    const index = id & this.mask;
    if (this.ids[index] === id) {
      this.ids[index] = 0;
      this.takenUsdNano = this.usd[index]!;
      this.takenTokens = this.tokens[index]!;
      this.size--;
      return true;
    }
    if (this.overflow.size === 0) return false;
    const entry = this.overflow.get(id);
    if (entry === undefined) return false;
    this.overflow.delete(id);
    this.takenUsdNano = entry.usdNano;
    this.takenTokens = entry.tokens;
    this.size--;
    return true;
  }

  private grow(): void {
    const { ids, usd, tokens } = this;
    const capacity = ids.length * 2;
    this.ids = new Float64Array(capacity);
    this.usd = new Float64Array(capacity);
    this.tokens = new Float64Array(capacity);
    this.mask = capacity - 1;
    // The ring holds ids within one old length of each other: they land in distinct slots.
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      if (id === 0) continue;
      const index = id & this.mask;
      this.ids[index] = id;
      this.usd[index] = usd[i]!;
      this.tokens[index] = tokens[i]!;
    }
  }
}
