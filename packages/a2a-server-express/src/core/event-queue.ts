import { createErrorBrand } from '@a2aplane/a2a-types';

const SLOW_CONSUMER = /*#__PURE__*/ createErrorBrand('@a2aplane/a2a-server-express/SlowConsumerError');

/** Thrown out of a stream whose consumer fell too far behind (see docs/server.md, "Slow consumers"). */
export class SlowConsumerError extends Error {
  constructor() {
    super('stream consumer too slow; resubscribe with Last-Event-ID');
    this.name = 'SlowConsumerError';
    SLOW_CONSUMER.mark(this);
  }

  /** True for a SlowConsumerError from any copy of this package. */
  static isInstance(value: unknown): value is SlowConsumerError {
    return SLOW_CONSUMER.is(value);
  }
}

/**
 * A bounded single-consumer async queue. Overflow fails the stream with `SlowConsumerError`
 * instead of buffering without limit; `onClose` runs once, however the consumer leaves.
 * Made by `createEventQueue`.
 */
class BoundedEventQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private waiter: (() => void) | undefined;
  private ended = false;
  private error: unknown;
  private closed = false;

  constructor(
    private readonly maxSize: number,
    private readonly onClose: () => void,
  ) {}

  push(item: T): void {
    if (this.ended) return;
    if (this.items.length >= this.maxSize) {
      this.fail(new SlowConsumerError());
      return;
    }
    this.items.push(item);
    this.wake();
  }

  end(): void {
    this.ended = true;
    this.release();
    this.wake();
  }

  fail(error: unknown): void {
    if (this.ended) return;
    this.error = error;
    this.ended = true;
    this.items.length = 0;
    this.release();
    this.wake();
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }

  /** Detaches from the source as soon as no more items can arrive. */
  private release(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClose();
  }

  private close(): void {
    this.ended = true;
    this.items.length = 0;
    this.release();
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: async (): Promise<IteratorResult<T>> => {
        for (;;) {
          if (this.items.length > 0) return { done: false, value: this.items.shift() as T };
          if (this.ended) {
            this.release();
            if (this.error !== undefined) {
              const error = this.error;
              this.error = undefined;
              throw error;
            }
            return { done: true, value: undefined };
          }
          await new Promise<void>((resolve) => {
            this.waiter = resolve;
          });
        }
      },
      return: async (): Promise<IteratorResult<T>> => {
        this.close();
        return { done: true, value: undefined };
      },
    };
  }
}

/** A bounded single-consumer async queue of stream events (see `createEventQueue`). */
export type EventQueue<T> = BoundedEventQueue<T>;
/** @deprecated use `createEventQueue`; the class stays for one minor release. */
export const EventQueue: typeof BoundedEventQueue = BoundedEventQueue;

/**
 * Makes a bounded single-consumer async queue: at most `maxSize` items wait (beyond it the stream
 * fails with `SlowConsumerError`), and `onClose` runs once, however the consumer leaves.
 */
export function createEventQueue<T>(maxSize: number, onClose: () => void): EventQueue<T> {
  return new BoundedEventQueue<T>(maxSize, onClose);
}
