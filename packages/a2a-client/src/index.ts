import { CardResolver as CardResolverClass } from './discovery.js';
export {
  type ApiKeyAuthOptions,
  type AuthPeer,
  type AuthProvider,
  type AuthRequest,
  apiKeyAuth,
  type BearerAuthOptions,
  bearerAuth,
} from './auth.js';
export {
  type OAuthClientCredentialsOptions,
  type OAuthFlowRequest,
  type OAuthToken,
  oauthClientCredentials,
} from './oauth.js';
export { OAuthTokenError } from './oauth-token-endpoint.js';
export {
  type A2AClient,
  type A2AClientOptions,
  type CallOptions,
  createA2AClient,
  DEFAULT_STREAM_IDLE_TIMEOUT_MS,
  DEFAULT_TIMEOUT_MS,
  type ResumeOptions,
  type SubscribeOptions,
  selectInterfaces,
} from './client.js';
export { type CallContext, createTraceparent, withCallContext } from './context.js';
// The wire codec lives in a2a-types (one implementation for the client and a2a-governance).
export { taskContextToWire as contextToWire } from '@a2aplane/a2a-types';
export {
  createCardResolver,
  type CardResolverOptions,
  type CardVerifier,
  type DiscoveredCard,
  discoverAgentCard,
  type TrustedCardKey,
  type UnsignedCardPolicy,
} from './discovery.js';
export {
  A2AAbortError,
  A2ATimeoutError,
  A2ATransportError,
  type A2ATransportErrorOptions,
  AgentCardDiscoveryError,
  type AgentCardDiscoveryFailure,
  CircuitOpenError,
  CardSignatureInvalidError,
  type CardVerificationResult,
  type CardVerificationStatus,
  SseEventTooLargeError,
  StreamResumeExhaustedError,
} from './errors.js';
export { type A2AValidator, structuralValidator, type Validation } from './guards.js';
export type { FetchLike } from './http.js';
export {
  type CallOutcome,
  composeInterceptors,
  type IncomingResponse,
  type Interceptors,
  type OutgoingCall,
  type OutgoingRequest,
} from './interceptors.js';
export { DEFAULT_MAX_CONCURRENT_PER_ORIGIN } from './peer-limits.js';
export {
  type ParsePushNotificationOptions,
  type PushNotificationResult,
  parsePushNotification,
  type WebhookVerifierLike,
} from './push.js';
export type { ResponseInfo } from './response-info.js';
export { DEFAULT_RETRY_OPTIONS, parseRetryAfter, type RetryOptions } from './retry.js';
export { type ParseServerSentEventsOptions, parseServerSentEvents, type ServerSentEvent } from './sse/parse-sse.js';
export { defaultTransports } from './transports/registry.js';
export type {
  StreamItem,
  Transport,
  TransportBinding,
  TransportCallOptions,
  TransportContext,
  TransportFactory,
  TransportRegistry,
} from './transports/types.js';
export type { V03Support, V03Translators } from './v0_3-loader.js';

/** Agent card discovery with caching. Made by `createCardResolver`. */
export type CardResolver = CardResolverClass;
/** @deprecated use `createCardResolver`; the class stays for one minor release. */
export const CardResolver: typeof CardResolverClass = CardResolverClass;
