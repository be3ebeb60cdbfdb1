import type { ServerResponse } from 'node:http';
import { MEDIA_TYPE_EVENT_STREAM } from '@a2aplane/a2a-types';
import { SlowConsumerError } from '../core/event-queue.js';
import type { StreamEvent } from '../core/types.js';

export interface SseOptions {
  /** Milliseconds between `: heartbeat` comments; 0 disables them. Default 15 000. */
  heartbeatMs?: number;
  /** Serialises one event's data (JSON-RPC wraps it in a response envelope, REST sends it bare). */
  frame(event: StreamEvent): unknown;
  /** Serialises an error that ends the stream. */
  errorFrame(error: unknown): unknown;
}

/** Formats one SSE event; `data` is single-line JSON, so no line splitting is needed. */
export function formatSseEvent(id: string | undefined, data: unknown): string {
  return `${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`;
}

/**
 * Pipes a stream to an HTTP response as Server-Sent Events: `id:` on every event, heartbeat
 * comments, backpressure (waits for `drain`), and on client disconnect the iterator is returned
 * so every listener is released.
 */
export async function writeSse(res: ServerResponse, events: AsyncIterable<StreamEvent>, options: SseOptions): Promise<void> {
  res.writeHead(200, {
    'content-type': MEDIA_TYPE_EVENT_STREAM,
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();
  const iterator = events[Symbol.asyncIterator]();
  let closed = false;
  const onClose = (): void => {
    closed = true;
    void iterator.return?.();
  };
  res.on('close', onClose);
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const heartbeat =
    heartbeatMs > 0
      ? setInterval(() => {
          if (!closed) res.write(': heartbeat\n\n');
        }, heartbeatMs)
      : undefined;
  heartbeat?.unref?.();
  try {
    for (;;) {
      const next = await iterator.next();
      if (next.done || closed) break;
      const ok = res.write(formatSseEvent(next.value.id, options.frame(next.value)));
      if (!ok && !closed)
        await new Promise<void>((resolve) => {
          const done = (): void => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.on('drain', done);
          res.on('close', done);
        });
    }
  } catch (error) {
    if (!closed) {
      if (SlowConsumerError.isInstance(error)) res.write(`: ${error.message}\n\n`);
      else res.write(formatSseEvent(undefined, options.errorFrame(error)));
    }
  } finally {
    if (heartbeat) clearInterval(heartbeat);
    res.off('close', onClose);
    if (!closed) res.end();
  }
}
