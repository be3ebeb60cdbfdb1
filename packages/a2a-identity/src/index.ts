export { decodeBase64Url, encodeBase64Url } from './base64url.js';
export { canonicalBytes, canonicalize } from './jcs.js';
export { canonicalCardPayload } from './card-canonical.js';
export {
  createJwks,
  defaultKid,
  exportPrivateJwk,
  exportPublicJwk,
  generateKeyPair,
  type ImportJwkResult,
  importJwk,
  isKeyPair,
  isSigningAlgorithm,
  jwkThumbprint,
  type KeyPair,
  keyPairFromPrivateKey,
  type PrivateJwk,
  type PublicJwk,
  SIGNING_ALGORITHMS,
  type SigningAlgorithm,
  toVerificationKey,
  type VerificationKey,
} from './keys.js';
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
  createHttpRequestSigner,
  createHttpSignatureVerifier,
  HTTP_SIGNATURE_COMPONENTS,
  HTTP_SIGNATURE_LABEL,
  HMAC_SIGNATURE_ALG,
  HttpSignatureError,
  type HttpRequestSigner,
  type HttpRequestSignerOptions,
  type HttpSignatureFailure,
  type HttpSignatureMessage,
  type HttpSignatureVerification,
  type HttpSignatureVerifier,
  type HttpSignatureVerifierOptions,
  httpSignatureBase,
  type ParsedHttpSignature,
  readHttpSignature,
  type SignableRequest,
  type SignatureParameters,
  signHttpMessage,
  type VerifiableRequest,
  verifyHttpSignatureWith,
} from './http-signatures.js';
export {
  fastPathKeyOf,
  readRequestSignatureAlgs,
  REQUEST_SIGNATURES_EXTENSION_URI,
  type RequestSignatureAcceptance,
  type RequestSignatureAlg,
  type RequestSignerPeer,
  withRequestSignaturesExtension,
} from './request-signatures-extension.js';
export { createNonceCache, type NonceCache } from './nonce-cache.js';
export { readPublicJwk } from './public-jwk.js';
