import * as z from 'zod/mini';
import { oneOfObject } from './one-of.js';

const ScopesSchema = /*#__PURE__*/ z.record(z.string(), z.string());

export const AuthorizationCodeOAuthFlowSchema = /*#__PURE__*/ z.object({
  authorizationUrl: z.string(),
  tokenUrl: z.string(),
  refreshUrl: z.optional(z.string()),
  scopes: ScopesSchema,
  pkceRequired: z.optional(z.boolean()),
});
export const ClientCredentialsOAuthFlowSchema = /*#__PURE__*/ z.object({
  tokenUrl: z.string(),
  refreshUrl: z.optional(z.string()),
  scopes: ScopesSchema,
});
/** Deprecated in v1.0 (kept so that older cards still parse). */
export const ImplicitOAuthFlowSchema = /*#__PURE__*/ z.object({
  authorizationUrl: z.optional(z.string()),
  refreshUrl: z.optional(z.string()),
  scopes: z.optional(ScopesSchema),
});
/** Deprecated in v1.0 (kept so that older cards still parse). */
export const PasswordOAuthFlowSchema = /*#__PURE__*/ z.object({
  tokenUrl: z.optional(z.string()),
  refreshUrl: z.optional(z.string()),
  scopes: z.optional(ScopesSchema),
});
export const DeviceCodeOAuthFlowSchema = /*#__PURE__*/ z.object({
  deviceAuthorizationUrl: z.string(),
  tokenUrl: z.string(),
  refreshUrl: z.optional(z.string()),
  scopes: ScopesSchema,
});

/** Exactly one OAuth 2.0 flow (spec §4.5.7). */
export const OAuthFlowsSchema = /*#__PURE__*/ oneOfObject({
  authorizationCode: AuthorizationCodeOAuthFlowSchema,
  clientCredentials: ClientCredentialsOAuthFlowSchema,
  implicit: ImplicitOAuthFlowSchema,
  password: PasswordOAuthFlowSchema,
  deviceCode: DeviceCodeOAuthFlowSchema,
});
export type OAuthFlows = z.infer<typeof OAuthFlowsSchema>;

export const APIKeySecuritySchemeSchema = /*#__PURE__*/ z.object({
  description: z.optional(z.string()),
  /** `query`, `header` or `cookie`. */
  location: z.string(),
  name: z.string(),
});
export const HTTPAuthSecuritySchemeSchema = /*#__PURE__*/ z.object({
  description: z.optional(z.string()),
  /** An IANA HTTP authentication scheme, such as `Bearer` or `Basic`. */
  scheme: z.string(),
  bearerFormat: z.optional(z.string()),
});
export const OAuth2SecuritySchemeSchema = /*#__PURE__*/ z.object({
  description: z.optional(z.string()),
  flows: OAuthFlowsSchema,
  oauth2MetadataUrl: z.optional(z.string()),
});
export const OpenIdConnectSecuritySchemeSchema = /*#__PURE__*/ z.object({
  description: z.optional(z.string()),
  openIdConnectUrl: z.string(),
});
export const MutualTlsSecuritySchemeSchema = /*#__PURE__*/ z.object({
  description: z.optional(z.string()),
});

export type APIKeySecurityScheme = z.infer<typeof APIKeySecuritySchemeSchema>;
export type HTTPAuthSecurityScheme = z.infer<typeof HTTPAuthSecuritySchemeSchema>;
export type OAuth2SecurityScheme = z.infer<typeof OAuth2SecuritySchemeSchema>;
export type OpenIdConnectSecurityScheme = z.infer<typeof OpenIdConnectSecuritySchemeSchema>;
export type MutualTlsSecurityScheme = z.infer<typeof MutualTlsSecuritySchemeSchema>;

/** One way to authenticate to an agent (spec §4.5.1). */
export const SecuritySchemeSchema = /*#__PURE__*/ oneOfObject({
  apiKeySecurityScheme: APIKeySecuritySchemeSchema,
  httpAuthSecurityScheme: HTTPAuthSecuritySchemeSchema,
  oauth2SecurityScheme: OAuth2SecuritySchemeSchema,
  openIdConnectSecurityScheme: OpenIdConnectSecuritySchemeSchema,
  mtlsSecurityScheme: MutualTlsSecuritySchemeSchema,
});
export type SecurityScheme = z.infer<typeof SecuritySchemeSchema>;

export const StringListSchema = /*#__PURE__*/ z.object({ list: z.optional(z.array(z.string())) });
export type StringList = z.infer<typeof StringListSchema>;

/** Scheme names (keys of `securitySchemes`) that must all be satisfied, with the scopes each needs. */
export const SecurityRequirementSchema = /*#__PURE__*/ z.object({
  schemes: z.optional(z.record(z.string(), StringListSchema)),
});
export type SecurityRequirement = z.infer<typeof SecurityRequirementSchema>;
