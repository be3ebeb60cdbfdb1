import type { ServerResponse } from 'node:http';
import type { StreamEvent } from '../core/types.js';
import { closingFrame, DEFAULT_HEARTBEAT_MS, formatSseEvent, HEARTBEAT_COMMENT, SSE_HEADERS } from './sse-format.js';

export { formatSseEvent } from './sse-format.js';

export interface SseOptions {
  /** Milliseconds between `: heartbeat` comments; 0 disables them. Default 15 000. */
  heartbeatMs?: number;
  /** Serialises one event's data (JSON-RPC wraps it in a response envelope, REST sends it bare). */
  frame(event: StreamEvent): unknown;
  /** Serialises an error that ends the stream. */
  errorFrame(error: unknown): unknown;
  /** More response headers (the CORS ones). */
  headers?: Record<string, string>;
}

/**
 * Pipes a stream to an HTTP response as Server-Sent Events: `id:` on every event, heartbeat
 * comments, backpressure (waits for `drain`), and on client disconnect the iterator is returned
 * so every listener is released.
 */
export async function writeSse(res: ServerResponse, events: AsyncIterable<StreamEvent>, options: SseOptions): Promise<void> {
  res.writeHead(200, { ...SSE_HEADERS, connection: 'keep-alive', ...options.headers });
  res.flushHeaders();
  const iterator = events[Symbol.asyncIterator]();
  let closed = false;
  const onClose = (): void => {
    closed = true;
    void iterator.return?.();
  };
  res.on('close', onClose);
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const heartbeat =
    heartbeatMs > 0
      ? setInterval(() => {
          if (!closed) res.write(HEARTBEAT_COMMENT);
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
    if (!closed) res.write(closingFrame(error, options));
  } finally {
    if (heartbeat) clearInterval(heartbeat);
    res.off('close', onClose);
    if (!closed) res.end();
  }
}
