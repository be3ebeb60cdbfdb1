import type { AuthProvider } from '@a2aplane/a2a-client';
import type { ChannelCredentials, ChannelOptions } from '@grpc/grpc-js';

export interface GrpcTransportOptions {
  /** The gRPC target of the agent's GRPC interface (`AgentInterface.url`), such as `host:port`. */
  target: string;
  /**
   * Required: `credentials.createSsl()` for TLS, or `credentials.createInsecure()` to talk
   * plaintext (a deliberate choice, e.g. to a local agent).
   */
  credentials: ChannelCredentials;
  /** grpc-js channel options (message size limits, keepalive, ...). */
  channelOptions?: ChannelOptions;
  /**
   * Adds credentials to every call, as for HTTP (`bearerAuth`, `apiKeyAuth` with `location: 'header'`):
   * the headers it sets are sent as metadata. gRPC has no query string, so query parameters it adds
   * are not sent. After an `UNAUTHENTICATED` answer, `onUnauthorized()` returning true resends once.
   */
  auth?: AuthProvider | undefined;
}

/** Per-call options, as the a2a-client transports take them. */
export interface GrpcTransportCallOptions {
  /** Lower-case header names; sent as metadata (`a2a-version` is added unless present). */
  headers?: Readonly<Record<string, string>>;
  signal?: AbortSignal;
  /** Becomes the call's gRPC deadline. */
  timeoutMs?: number;
  /** Streams: a message larger than this fails the stream with `SseEventTooLargeError` (as over SSE). */
  maxEventBytes?: number;
  /** Streams: called when the response headers arrive (a sign of life that is not an item). */
  onActivity?: () => void;
  /**
   * Streams: resume after this event id (sent as `last-event-id` metadata; our servers honour it on
   * SubscribeToTask, as `Last-Event-ID` over SSE; servers that do not know it send the task snapshot).
   */
  lastEventId?: string;
  /**
   * Called with the extensions the agent activated (the `a2a-extensions` response metadata) once a
   * unary result was decoded, or once a stream's response headers arrived; its error fails the call.
   */
  onResponse?: (info: { readonly activatedExtensions: readonly string[] }) => void;
}

/**
 * One stream item, as the a2a-client transports yield them. `id` is the event id our servers send
 * with each item (decision 0030); `undefined` from servers that send none, such as the official SDK's.
 */
export interface GrpcStreamItem {
  data: unknown;
  id: string | undefined;
}
