/**
 * `@a2aplane/a2a-identity/verify`: verifying signed agent cards and nothing else, for bundles
 * that must stay small (the a2a-client verifies every signed card it discovers through this).
 * Signatures are checked with WebCrypto, so no curve arithmetic is bundled; the root entry
 * exports the same functions next to signing and key generation.
 */
export { agentIdFromPublicKey, isAgentId, readDeclaredAgentId } from './agent-id.js';
export {
  composeKeyResolvers,
  createJwksKeyResolver,
  createPinnedKeyResolver,
  isAllowedJkuUrl,
  type JwksKeyResolverOptions,
  type KeyResolver,
  type KeyResolverHeader,
} from './key-resolver.js';
export type { PublicJwk, SigningAlgorithm, VerificationKey } from './key-types.js';
export { readPublicJwk } from './public-jwk.js';
export {
  type CardVerificationResult,
  createVerificationCache,
  type VerificationCache,
  type VerifyAgentCardOptions,
  verifyAgentCard,
} from './verify.js';
