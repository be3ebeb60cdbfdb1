import type { A2AMethod, AgentInterface } from '@a2aplane/a2a-types';
import type { AuthProvider } from '../auth.js';
import type { FetchLike } from '../http.js';
import type { Interceptors } from '../interceptors.js';
import type { ResponseInfo } from '../response-info.js';

/**
 * A protocol binding name as it appears in `AgentInterface.protocolBinding` (spec §5: `JSONRPC`,
 * `HTTP+JSON`, `GRPC`), or any other name a registered transport factory handles.
 */
export type TransportBinding = 'JSONRPC' | 'HTTP+JSON' | 'GRPC' | (string & {});

/** What the client hands a transport for one call or stream. */
export interface TransportCallOptions {
  /**
   * Lower-case header names: `a2a-version`, `a2a-extensions`, `traceparent`, the client's and the
   * call's headers, and those added by interceptors. Transports copy, never change, this object
   * (gRPC sends them as metadata).
   */
  headers: Readonly<Record<string, string>>;
  /**
   * Aborted when the caller aborts, the call times out (unary timeout, or stream idle timeout), or
   * the consumer stops reading a stream. The client enforces every timeout through this signal and
   * classifies the failure itself; a transport only has to stop promptly and reject.
   */
  signal?: AbortSignal;
  /** `Last-Event-ID` for a resumed stream. */
  lastEventId?: string;
  /** Largest stream event accepted, in bytes. */
  maxEventBytes?: number;
  /**
   * Streams: call on every sign of life that is not an item (SSE comments such as heartbeats, gRPC
   * keep-alives): it restarts the client's idle timer like an item does.
   */
  onActivity?: () => void;
  /**
   * Call with the response's `ResponseInfo` once a unary result (not an error) was read, or once a
   * stream is open; its error fails the call.
   */
  onResponse?: (info: ResponseInfo) => void;
}

/** One unwrapped stream item (still unvalidated) and the event id it came with, if the binding has one. */
export interface StreamItem {
  data: unknown;
  id: string | undefined;
}

/** One binding at one URL: sends an operation, returns its raw (unvalidated) result. */
export interface Transport {
  readonly binding: TransportBinding;
  readonly url: string;
  /** A unary operation; resolves with the raw result (the JSON-RPC `result` shape, ProtoJSON). */
  call(method: A2AMethod, params: Record<string, unknown>, options: TransportCallOptions): Promise<unknown>;
  /** Opens a stream; resolves once the stream is established. Leaving the iteration ends the stream. */
  open(method: A2AMethod, params: Record<string, unknown>, options: TransportCallOptions): Promise<AsyncIterable<StreamItem>>;
}

/** What a transport factory gets besides the interface: the client's HTTP settings. */
export interface TransportContext {
  /** The client's `fetch` option (`undefined`: the global `fetch`). */
  fetch: FetchLike | undefined;
  /** The client's auth provider: apply it to every request (for gRPC: to a `Headers` copied into metadata). */
  auth: AuthProvider | undefined;
  /** The client's interceptors, composed; HTTP transports run `beforeRequest` / `afterResponse` per request. */
  interceptors: Interceptors | undefined;
}

/** Builds the transport for one of the card's interfaces (its `url`, `protocolBinding`, `tenant`). */
export type TransportFactory = (agentInterface: AgentInterface, context: TransportContext) => Transport;

/** Transport factories keyed by protocol binding name. */
export type TransportRegistry = Readonly<Record<string, TransportFactory>>;
