import * as z from 'zod';
import { oneOfObject } from './one-of.js';

const ScopesSchema = z.record(z.string(), z.string());

export const AuthorizationCodeOAuthFlowSchema = z.object({
  authorizationUrl: z.string(),
  tokenUrl: z.string(),
  refreshUrl: z.string().optional(),
  scopes: ScopesSchema,
  pkceRequired: z.boolean().optional(),
});
export const ClientCredentialsOAuthFlowSchema = z.object({
  tokenUrl: z.string(),
  refreshUrl: z.string().optional(),
  scopes: ScopesSchema,
});
/** Deprecated in v1.0 (kept so that older cards still parse). */
export const ImplicitOAuthFlowSchema = z.object({
  authorizationUrl: z.string().optional(),
  refreshUrl: z.string().optional(),
  scopes: ScopesSchema.optional(),
});
/** Deprecated in v1.0 (kept so that older cards still parse). */
export const PasswordOAuthFlowSchema = z.object({
  tokenUrl: z.string().optional(),
  refreshUrl: z.string().optional(),
  scopes: ScopesSchema.optional(),
});
export const DeviceCodeOAuthFlowSchema = z.object({
  deviceAuthorizationUrl: z.string(),
  tokenUrl: z.string(),
  refreshUrl: z.string().optional(),
  scopes: ScopesSchema,
});

/** Exactly one OAuth 2.0 flow (spec §4.5.7). */
export const OAuthFlowsSchema = oneOfObject({
  authorizationCode: AuthorizationCodeOAuthFlowSchema,
  clientCredentials: ClientCredentialsOAuthFlowSchema,
  implicit: ImplicitOAuthFlowSchema,
  password: PasswordOAuthFlowSchema,
  deviceCode: DeviceCodeOAuthFlowSchema,
});
export type OAuthFlows = z.infer<typeof OAuthFlowsSchema>;

export const APIKeySecuritySchemeSchema = z.object({
  description: z.string().optional(),
  /** `query`, `header` or `cookie`. */
  location: z.string(),
  name: z.string(),
});
export const HTTPAuthSecuritySchemeSchema = z.object({
  description: z.string().optional(),
  /** An IANA HTTP authentication scheme, such as `Bearer` or `Basic`. */
  scheme: z.string(),
  bearerFormat: z.string().optional(),
});
export const OAuth2SecuritySchemeSchema = z.object({
  description: z.string().optional(),
  flows: OAuthFlowsSchema,
  oauth2MetadataUrl: z.string().optional(),
});
export const OpenIdConnectSecuritySchemeSchema = z.object({
  description: z.string().optional(),
  openIdConnectUrl: z.string(),
});
export const MutualTlsSecuritySchemeSchema = z.object({
  description: z.string().optional(),
});

export type APIKeySecurityScheme = z.infer<typeof APIKeySecuritySchemeSchema>;
export type HTTPAuthSecurityScheme = z.infer<typeof HTTPAuthSecuritySchemeSchema>;
export type OAuth2SecurityScheme = z.infer<typeof OAuth2SecuritySchemeSchema>;
export type OpenIdConnectSecurityScheme = z.infer<typeof OpenIdConnectSecuritySchemeSchema>;
export type MutualTlsSecurityScheme = z.infer<typeof MutualTlsSecuritySchemeSchema>;

/** One way to authenticate to an agent (spec §4.5.1). */
export const SecuritySchemeSchema = oneOfObject({
  apiKeySecurityScheme: APIKeySecuritySchemeSchema,
  httpAuthSecurityScheme: HTTPAuthSecuritySchemeSchema,
  oauth2SecurityScheme: OAuth2SecuritySchemeSchema,
  openIdConnectSecurityScheme: OpenIdConnectSecuritySchemeSchema,
  mtlsSecurityScheme: MutualTlsSecuritySchemeSchema,
});
export type SecurityScheme = z.infer<typeof SecuritySchemeSchema>;

export const StringListSchema = z.object({ list: z.array(z.string()).optional() });
export type StringList = z.infer<typeof StringListSchema>;

/** Scheme names (keys of `securitySchemes`) that must all be satisfied, with the scopes each needs. */
export const SecurityRequirementSchema = z.object({
  schemes: z.record(z.string(), StringListSchema).optional(),
});
export type SecurityRequirement = z.infer<typeof SecurityRequirementSchema>;
