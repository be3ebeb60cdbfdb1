import type { A2AMethod } from '@a2aplane/a2a-types';

export type TransportBinding = 'JSONRPC' | 'HTTP+JSON';

export interface TransportCallOptions {
  /** Lower-case header names; transports copy, never change, this object. */
  headers: Readonly<Record<string, string>>;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** `Last-Event-ID` for a resumed stream. */
  lastEventId?: string;
  maxEventBytes?: number;
}

/** One unwrapped stream item (still unvalidated) and the SSE id it came with. */
export interface StreamItem {
  data: unknown;
  id: string | undefined;
}

/** One binding at one URL: sends an operation, returns its raw (unvalidated) result. */
export interface Transport {
  readonly binding: TransportBinding;
  readonly url: string;
  call(method: A2AMethod, params: Record<string, unknown>, options: TransportCallOptions): Promise<unknown>;
  /** Opens a stream; resolves once the response headers arrived with an event stream. */
  open(method: A2AMethod, params: Record<string, unknown>, options: TransportCallOptions): Promise<AsyncIterable<StreamItem>>;
}
