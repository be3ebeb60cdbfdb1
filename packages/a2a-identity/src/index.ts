export { decodeBase64Url, encodeBase64Url } from './base64url.js';
export { canonicalBytes, canonicalize } from './jcs.js';
export { canonicalCardPayload } from './card-canonical.js';
export {
  createJwks,
  exportPrivateJwk,
  exportPublicJwk,
  generateKeyPair,
  importJwk,
  jwkThumbprint,
  keyPairFromPrivateKey,
  toVerificationKey,
} from './keys.js';
export {
  type ImportJwkResult,
  isKeyPair,
  isSigningAlgorithm,
  type KeyPair,
  type PrivateJwk,
  type PublicJwk,
  SIGNING_ALGORITHMS,
  type SigningAlgorithm,
  type VerificationKey,
} from './key-types.js';
export { defaultKid } from './public-jwk.js';
export {
  agentIdFromPublicKey,
  type CardAgentIdCheck,
  checkCardAgentId,
  isAgentId,
  readDeclaredAgentId,
  withAgentIdExtension,
} from './agent-id.js';
export { type SignAgentCardOptions, type SignedCard, signAgentCard } from './sign.js';
export {
  type CardVerificationResult,
  createVerificationCache,
  type VerificationCache,
  type VerifyAgentCardOptions,
  verifyAgentCard,
} from './verify.js';
export {
  composeKeyResolvers,
  createJwksKeyResolver,
  createPinnedKeyResolver,
  isAllowedJkuUrl,
  type JwksKeyResolverOptions,
  type KeyResolver,
  type KeyResolverHeader,
} from './key-resolver.js';
export { createAllowAllIdentityResolver, createAllowlistIdentityResolver, type IdentityResolver } from './trust.js';
export {
  createEd25519WebhookSigner,
  createHmacWebhookSigner,
  createWebhookVerifier,
  DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  type WebhookAlgorithm,
  type WebhookHeaders,
  type WebhookSigner,
  type WebhookVerificationResult,
  type WebhookVerifierOptions,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
} from './webhooks.js';
export { type CallerKeyResolver, type CallerKeyResolverOptions, createCallerKeyResolver } from './caller-keys.js';
export {
  contentDigest,
  HttpSignatureError,
  type HttpSignatureMessage,
  httpSignatureBase,
  type ParsedHttpSignature,
  readHttpSignature,
  type SignatureParameters,
  signHttpMessage,
  verifyHttpSignatureWith,
} from './rfc9421.js';
export { HMAC_SIGNATURE_ALG } from './hmac-request-key.js';
export {
  createHttpRequestSigner,
  HTTP_SIGNATURE_COMPONENTS,
  HTTP_SIGNATURE_LABEL,
  type HttpRequestSigner,
  type HttpRequestSignerOptions,
  type SignableRequest,
} from './request-signer.js';
export { createHttpSignatureVerifier } from './request-verifier.js';
export type {
  HttpSignatureFailure,
  HttpSignatureVerification,
  HttpSignatureVerifier,
  HttpSignatureVerifierOptions,
  VerifiableRequest,
} from './request-verifier-types.js';
export {
  fastPathKeyOf,
  readRequestSignatureAlgs,
  REQUEST_SIGNATURES_EXTENSION_URI,
  type RequestSignatureAcceptance,
  type RequestSignatureAlg,
  type RequestSignerPeer,
  withRequestSignaturesExtension,
} from './request-signatures-extension.js';
export { createNonceCache, type InMemoryNonceCache, type NonceCache, type NonceCacheOptions } from './nonce-cache.js';
export { readPublicJwk } from './public-jwk.js';
export { isAcceptableEd25519PublicKey } from './ed25519-public-key.js';
