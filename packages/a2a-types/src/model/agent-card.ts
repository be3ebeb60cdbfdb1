import * as z from 'zod/mini';
import { StructSchema, nonEmptyArray, repeated } from './primitives.js';
import { SecurityRequirementSchema, SecuritySchemeSchema } from './security.js';

/** A URL where the agent speaks one binding at one protocol version (spec §4.4.6). */
export const AgentInterfaceSchema = /*#__PURE__*/ z.object({
  url: z.string().check(z.minLength(1)),
  protocolBinding: z.string().check(z.minLength(1)),
  tenant: z.optional(z.string()),
  protocolVersion: z.string().check(z.minLength(1)),
});
export type AgentInterface = z.infer<typeof AgentInterfaceSchema>;

export const AgentProviderSchema = /*#__PURE__*/ z.object({
  url: z.string(),
  organization: z.string(),
});
export type AgentProvider = z.infer<typeof AgentProviderSchema>;

/** A protocol extension the agent supports (spec §4.4.4, §4.6). */
export const AgentExtensionSchema = /*#__PURE__*/ z.object({
  uri: z.optional(z.string()),
  description: z.optional(z.string()),
  required: z.optional(z.boolean()),
  params: z.optional(StructSchema),
});
export type AgentExtension = z.infer<typeof AgentExtensionSchema>;

export const AgentCapabilitiesSchema = /*#__PURE__*/ z.object({
  streaming: z.optional(z.boolean()),
  pushNotifications: z.optional(z.boolean()),
  extensions: z.optional(z.array(AgentExtensionSchema)),
  extendedAgentCard: z.optional(z.boolean()),
});
export type AgentCapabilities = z.infer<typeof AgentCapabilitiesSchema>;

export const AgentSkillSchema = /*#__PURE__*/ z.object({
  id: z.string().check(z.minLength(1)),
  name: z.string(),
  description: z.string(),
  tags: repeated(z.string()),
  examples: z.optional(z.array(z.string())),
  inputModes: z.optional(z.array(z.string())),
  outputModes: z.optional(z.array(z.string())),
  securityRequirements: z.optional(z.array(SecurityRequirementSchema)),
});
export type AgentSkill = z.infer<typeof AgentSkillSchema>;

/** A JWS over the card in flattened form (spec §4.4.7, §8.4.2). */
export const AgentCardSignatureSchema = /*#__PURE__*/ z.object({
  protected: z.string().check(z.minLength(1)),
  signature: z.string().check(z.minLength(1)),
  header: z.optional(StructSchema),
});
export type AgentCardSignature = z.infer<typeof AgentCardSignatureSchema>;

/** An agent's self-description, served at `/.well-known/agent-card.json` (spec §4.4.1, §8). */
export const AgentCardSchema = /*#__PURE__*/ z.object({
  name: z.string(),
  description: z.string(),
  supportedInterfaces: nonEmptyArray(AgentInterfaceSchema),
  provider: z.optional(AgentProviderSchema),
  version: z.string(),
  documentationUrl: z.optional(z.string()),
  capabilities: AgentCapabilitiesSchema,
  securitySchemes: z.optional(z.record(z.string(), SecuritySchemeSchema)),
  securityRequirements: z.optional(z.array(SecurityRequirementSchema)),
  // Required, but a proto-based peer omits them when empty (ProtoJSON has no presence for repeated fields).
  defaultInputModes: repeated(z.string()),
  defaultOutputModes: repeated(z.string()),
  skills: repeated(AgentSkillSchema),
  signatures: z.optional(z.array(AgentCardSignatureSchema)),
  iconUrl: z.optional(z.string()),
});
export type AgentCard = z.infer<typeof AgentCardSchema>;
