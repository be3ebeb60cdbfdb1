import type { CoreRequest } from '../core/server.js';
import type { StreamEvent } from '../core/types.js';
import type { LazyQuery } from './query.js';

/** What reading a request body gave: bytes (and their text), a body a framework parsed first, or a refusal. */
export type BodyRead =
  | { kind: 'bytes'; raw: Uint8Array; text: string }
  | { kind: 'parsed'; value: unknown }
  | { kind: 'too-large' }
  | { kind: 'unreadable' };

/**
 * One HTTP request as the binding-neutral dispatch sees it. The node:http and fetch bindings each
 * implement it; the routing, limits and error mapping live once, in the dispatch.
 */
export interface HttpExchange {
  /** The request method, upper case as received. */
  readonly method: string;
  /** A request header (`name` lower case); repeated values joined with `,`. */
  header(name: string): string | undefined;
  readonly query: LazyQuery;
  /** True when the request declares a body (a non-zero length or a chunked one). */
  hasBody(): boolean;
  /** Reads the body up to `limit` bytes; past it, reading stops. */
  readBody(limit: number): Promise<BodyRead>;
  /** The body will not be read: drain a small one, otherwise let the connection close after the reply. */
  skipBody(limit: number): void;
  /** The core request of one A2A operation (`raw`: the bytes read, for request signatures). */
  coreRequest(method: string, params: unknown, raw: Uint8Array | undefined): CoreRequest;
}

/** Serialisers of one SSE stream: JSON-RPC wraps each event in a response envelope, REST sends it bare. */
interface SseFraming {
  frame(event: StreamEvent): unknown;
  errorFrame(error: unknown): unknown;
}

/** What the dispatch answers; each binding writes it its own way. */
export type Reply =
  | { kind: 'json'; status: number; body: unknown; headers?: Record<string, string> | undefined }
  | { kind: 'bytes'; status: number; body?: Uint8Array | undefined; headers: Record<string, string> }
  | ({ kind: 'sse'; events: AsyncIterable<StreamEvent>; headers?: Record<string, string> | undefined } & SseFraming);
