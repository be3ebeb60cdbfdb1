import type { StreamEvent } from '../core/types.js';
import { closingFrame, DEFAULT_HEARTBEAT_MS, formatSseEvent, HEARTBEAT_COMMENT } from './sse-format.js';

interface SseStreamOptions {
  /** Milliseconds between `: heartbeat` comments; 0 disables them. Default 15 000. */
  heartbeatMs?: number | undefined;
  frame(event: StreamEvent): unknown;
  errorFrame(error: unknown): unknown;
  /** Ends the stream (the caller went away). */
  signal?: AbortSignal | undefined;
  /** Called once when the stream ends, for whatever reason. */
  onEnd?: () => void;
}

const encoder = new TextEncoder();

/**
 * A stream as Server-Sent Events in a Web `ReadableStream`: one event is read from the source per
 * `pull`, so a reader that does not read holds the source back (backpressure; the core's bounded
 * subscriber buffer then ends a consumer that stays behind). Heartbeats go out while the queue is
 * empty. Cancelling the stream or aborting `signal` returns the source iterator, releasing its listeners.
 */
export function createSseStream(events: AsyncIterable<StreamEvent>, options: SseStreamOptions): ReadableStream<Uint8Array> {
  const iterator = events[Symbol.asyncIterator]();
  const signal = options.signal;
  let ended = false;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let onAbort: (() => void) | undefined;
  const end = (): void => {
    if (ended) return;
    ended = true;
    if (heartbeat !== undefined) clearInterval(heartbeat);
    if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
    void iterator.return?.();
    options.onEnd?.();
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
        if (heartbeatMs > 0) {
          heartbeat = setInterval(() => {
            // Only into an empty queue: a reader that does not read gets no pile of comments.
            if (!ended && (controller.desiredSize ?? 0) > 0) controller.enqueue(encoder.encode(HEARTBEAT_COMMENT));
          }, heartbeatMs);
          (heartbeat as { unref?: () => void }).unref?.();
        }
        if (signal !== undefined) {
          onAbort = () => {
            end();
            try {
              controller.close();
            } catch {
              // already closed or errored
            }
          };
          if (signal.aborted) onAbort();
          else signal.addEventListener('abort', onAbort, { once: true });
        }
      },
      async pull(controller) {
        if (ended) return;
        let chunk: string;
        let last = false;
        try {
          const next = await iterator.next();
          if (ended) return;
          if (next.done) {
            end();
            controller.close();
            return;
          }
          chunk = formatSseEvent(next.value.id, options.frame(next.value));
        } catch (error) {
          if (ended) return;
          chunk = closingFrame(error, options);
          last = true;
        }
        controller.enqueue(encoder.encode(chunk));
        if (last) {
          end();
          controller.close();
        }
      },
      cancel() {
        end();
      },
    },
    { highWaterMark: 1 },
  );
}
