import * as z from 'zod';
import { StructSchema, nonEmptyArray } from './primitives.js';
import { SecurityRequirementSchema, SecuritySchemeSchema } from './security.js';

/** A URL where the agent speaks one binding at one protocol version (spec §4.4.6). */
export const AgentInterfaceSchema = z.object({
  url: z.string().min(1),
  protocolBinding: z.string().min(1),
  tenant: z.string().optional(),
  protocolVersion: z.string().min(1),
});
export type AgentInterface = z.infer<typeof AgentInterfaceSchema>;

export const AgentProviderSchema = z.object({
  url: z.string(),
  organization: z.string(),
});
export type AgentProvider = z.infer<typeof AgentProviderSchema>;

/** A protocol extension the agent supports (spec §4.4.4, §4.6). */
export const AgentExtensionSchema = z.object({
  uri: z.string().optional(),
  description: z.string().optional(),
  required: z.boolean().optional(),
  params: StructSchema.optional(),
});
export type AgentExtension = z.infer<typeof AgentExtensionSchema>;

export const AgentCapabilitiesSchema = z.object({
  streaming: z.boolean().optional(),
  pushNotifications: z.boolean().optional(),
  extensions: z.array(AgentExtensionSchema).optional(),
  extendedAgentCard: z.boolean().optional(),
});
export type AgentCapabilities = z.infer<typeof AgentCapabilitiesSchema>;

export const AgentSkillSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  examples: z.array(z.string()).optional(),
  inputModes: z.array(z.string()).optional(),
  outputModes: z.array(z.string()).optional(),
  securityRequirements: z.array(SecurityRequirementSchema).optional(),
});
export type AgentSkill = z.infer<typeof AgentSkillSchema>;

/** A JWS over the card in flattened form (spec §4.4.7, §8.4.2). */
export const AgentCardSignatureSchema = z.object({
  protected: z.string().min(1),
  signature: z.string().min(1),
  header: StructSchema.optional(),
});
export type AgentCardSignature = z.infer<typeof AgentCardSignatureSchema>;

/** An agent's self-description, served at `/.well-known/agent-card.json` (spec §4.4.1, §8). */
export const AgentCardSchema = z.object({
  name: z.string(),
  description: z.string(),
  supportedInterfaces: nonEmptyArray(AgentInterfaceSchema),
  provider: AgentProviderSchema.optional(),
  version: z.string(),
  documentationUrl: z.string().optional(),
  capabilities: AgentCapabilitiesSchema,
  securitySchemes: z.record(z.string(), SecuritySchemeSchema).optional(),
  securityRequirements: z.array(SecurityRequirementSchema).optional(),
  defaultInputModes: z.array(z.string()),
  defaultOutputModes: z.array(z.string()),
  skills: z.array(AgentSkillSchema),
  signatures: z.array(AgentCardSignatureSchema).optional(),
  iconUrl: z.string().optional(),
});
export type AgentCard = z.infer<typeof AgentCardSchema>;
