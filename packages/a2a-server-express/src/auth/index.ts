export { createAuthenticator } from './authenticator.js';
export {
  createHttpSignatureAuthenticator,
  type HttpSignatureAuthenticatorOptions,
  type HttpSignatureRefusal,
  type HttpSignatureVerifierLike,
  type SignedRequestView,
} from './http-signature.js';
export { createIntrospectionVerifier, type IntrospectionVerifierOptions } from './introspection.js';
export { createJwtVerifier, DEFAULT_JWT_ALGORITHMS, type JwtVerifierOptions } from './jwt-verifier.js';
export { checkSkillScopes, type SkillScopeRule } from './skill-scopes.js';
export { nodeSignatureCrypto, verifyEd25519 } from './ed25519.js';
export { createStaticApiKeyVerifier } from './static-api-key.js';
export { timingSafeEqualString } from './timing-safe.js';
export type {
  ApiKeyVerifier,
  Authenticator,
  AuthContext,
  AuthenticatorOptions,
  AuthRequest,
  BasicVerifier,
  BearerVerifier,
  Principal,
  TokenVerifier,
} from './types.js';
