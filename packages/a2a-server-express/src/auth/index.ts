export { createAuthenticator } from './authenticator.js';
export {
  createHttpSignatureAuthenticator,
  type HttpSignatureAuthenticatorOptions,
  type HttpSignatureRefusal,
  type HttpSignatureVerifierLike,
  type SignedRequestView,
} from './http-signature.js';
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
