import { performance } from 'node:perf_hooks';

/** One call waiting on its deadline. */
interface Deadline {
  readonly at: number;
  readonly expire: () => void;
  done: boolean;
}

/**
 * The deadlines of calls that share one timeout, in the order they started (so in deadline
 * order): one timer for all of them, armed at the oldest pending deadline, instead of a timer per
 * call. A call that settles is marked done; done calls at the front leave at once.
 */
class DeadlineQueue {
  private items: Deadline[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly timeoutMs: number) {}

  add(expire: () => void): Deadline {
    const deadline: Deadline = { at: performance.now() + this.timeoutMs, expire, done: false };
    this.items.push(deadline);
    if (this.timer === undefined) this.arm();
    return deadline;
  }

  settle(deadline: Deadline): void {
    deadline.done = true;
    this.advance();
  }

  private advance(): void {
    const { items } = this;
    while (this.head < items.length && (items[this.head] as Deadline).done) this.head += 1;
    if (this.head === items.length) {
      // Nothing pending: no timer keeps the process alive for nothing.
      this.items = [];
      this.head = 0;
      clearTimeout(this.timer);
      this.timer = undefined;
    } else if (this.head >= 1_024 && this.head * 2 >= items.length) {
      this.items = items.slice(this.head);
      this.head = 0;
    }
  }

  private arm(): void {
    const first = this.items[this.head];
    this.timer = first === undefined ? undefined : setTimeout(() => this.fire(), Math.max(0, first.at - performance.now()));
  }

  private fire(): void {
    const now = performance.now();
    for (let i = this.head; i < this.items.length; i++) {
      const deadline = this.items[i] as Deadline;
      if (deadline.at > now) break;
      if (deadline.done) continue;
      deadline.done = true;
      deadline.expire();
    }
    this.timer = undefined;
    this.advance();
    if (this.timer === undefined && this.head < this.items.length) this.arm();
  }
}

const queues = new Map<number, DeadlineQueue>();

/** Starts the deadline of a call that may take at most `timeoutMs`: `expire` runs past it, unless the call was settled first. */
export function startDeadline(timeoutMs: number, expire: () => void): { settle(): void } {
  let queue = queues.get(timeoutMs);
  if (queue === undefined) {
    queue = new DeadlineQueue(timeoutMs);
    queues.set(timeoutMs, queue);
  }
  const deadline = queue.add(expire);
  const owner = queue;
  return { settle: () => owner.settle(deadline) };
}
