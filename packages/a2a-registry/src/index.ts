export { type CardLimits, DEFAULT_MAX_CARD_BYTES, DEFAULT_MAX_CARD_DEPTH } from './core/card-input.js';
export { AgentNotFoundError, AgentStateError, RegistryConflictError, RegistryError, RegistryRequestError } from './core/errors.js';
export type { OutboundOptions } from './core/fetch-text.js';
export {
  type Actor,
  createRegistry,
  type EnrollmentOutcome,
  type EnrollmentResult,
  type Registry,
  type RegistryOptions,
} from './core/registry.js';
export type {
  AgentHealth,
  AgentPage,
  AgentQuery,
  AgentRecord,
  AgentStatus,
  AgentView,
  AgentViewPage,
  HealthStatus,
  KeyHistoryEntry,
  RegistryJwk,
  RegistryReader,
} from './core/types.js';
export {
  type EnrollmentCheckOptions,
  type EnrollmentRefusal,
  type EnrollmentRequest,
  type EnrollmentVerification,
  type VerifiedEnrollment,
  verifyEnrollment,
} from './core/verify-enrollment.js';
export {
  createFileRegistryStore,
  DEFAULT_MAX_FILE_BYTES,
  type FileRegistryStoreOptions,
  RegistryFileError,
} from './store/file-store.js';
export { createInMemoryRegistryStore, type InMemoryRegistryStoreOptions, RegistryStoreFullError } from './store/in-memory-store.js';
export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, matchesQuery, type RegistryStore } from './store/registry-store.js';
export { A2A_AGENT_CARD_MEDIA_TYPE, type AiCatalog, type CatalogEntry, catalogIdentifier, toCatalogEntry } from './http/catalog.js';
export { createRegistryRequestHandler, type RegistryHandlerOptions, type RegistryRequestHandler } from './http/handler.js';
export type { OperatorTokens } from './http/operator-auth.js';
export { type SearchRequest, SearchRequestSchema } from './http/requests.js';
export { createRegistryHttpReader, type RegistryHttpReaderOptions } from './control/http-reader.js';
export { createProber, type Prober, type ProberOptions, type ProbeRound } from './prober/prober.js';
export { createRegistryCardVerifier, type RegistryCardVerifier, type RegistryCardVerifierOptions } from './control/card-verifier.js';
export { createRegistryTrust, type RegistryKeyResolverOptions, type RegistryTrust } from './control/key-resolver.js';
export {
  createRegistryPeerSource,
  type PeerPoolLike,
  type RefreshResult,
  type RegistryPeerSource,
  type RegistryPeerSourceOptions,
} from './control/peer-source.js';
export { type RegistryService, type RegistryServiceOptions, startRegistryService } from './http/service.js';
export { type RegistryTrustSnapshot, readRegistryTrustSnapshot } from './control/trust-snapshot.js';
