import { MEDIA_TYPE_EVENT_STREAM } from '@a2aplane/a2a-types';
import { SlowConsumerError } from '../core/event-queue.js';

/** The head of every SSE response. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': MEDIA_TYPE_EVENT_STREAM,
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};

export const DEFAULT_HEARTBEAT_MS = 15_000;
export const HEARTBEAT_COMMENT = ': heartbeat\n\n';

/** The last words of a stream that failed: a comment for a consumer too slow to keep up, else an error event. */
export function closingFrame(error: unknown, options: { errorFrame(error: unknown): unknown }): string {
  return SlowConsumerError.isInstance(error) ? `: ${error.message}\n\n` : formatSseEvent(undefined, options.errorFrame(error));
}

/** Formats one SSE event; `data` is single-line JSON, so no line splitting is needed. */
export function formatSseEvent(id: string | undefined, data: unknown): string {
  return `${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`;
}
