import * as z from 'zod/mini';
import { StructSchema } from '../model/primitives.js';

/**
 * Zod schemas of the A2A v0.3 wire shapes (spec/v0.3 `a2a.json`). They are as loose as v0.3 was:
 * strings may be empty and `kind` discriminates the unions. Unknown fields are dropped.
 */

export const V03TextPartSchema = /*#__PURE__*/ z.object({
  kind: z.literal('text'),
  text: z.string(),
  metadata: z.optional(StructSchema),
});
export type V03TextPart = z.infer<typeof V03TextPartSchema>;

export const V03FileWithBytesSchema = /*#__PURE__*/ z.object({
  bytes: z.string(),
  name: z.optional(z.string()),
  mimeType: z.optional(z.string()),
});
export const V03FileWithUriSchema = /*#__PURE__*/ z.object({
  uri: z.string(),
  name: z.optional(z.string()),
  mimeType: z.optional(z.string()),
});
export type V03FileWithBytes = z.infer<typeof V03FileWithBytesSchema>;
export type V03FileWithUri = z.infer<typeof V03FileWithUriSchema>;

export const V03FilePartSchema = /*#__PURE__*/ z.object({
  kind: z.literal('file'),
  file: z.union([V03FileWithBytesSchema, V03FileWithUriSchema]),
  metadata: z.optional(StructSchema),
});
export type V03FilePart = z.infer<typeof V03FilePartSchema>;

export const V03DataPartSchema = /*#__PURE__*/ z.object({
  kind: z.literal('data'),
  data: StructSchema,
  metadata: z.optional(StructSchema),
});
export type V03DataPart = z.infer<typeof V03DataPartSchema>;

export const V03PartSchema = /*#__PURE__*/ z.discriminatedUnion('kind', [V03TextPartSchema, V03FilePartSchema, V03DataPartSchema]);
export type V03Part = z.infer<typeof V03PartSchema>;

export const V03RoleSchema = /*#__PURE__*/ z.enum(['user', 'agent']);
export type V03Role = z.infer<typeof V03RoleSchema>;

export const V03MessageSchema = /*#__PURE__*/ z.object({
  kind: z.literal('message'),
  messageId: z.string(),
  role: V03RoleSchema,
  parts: z.array(V03PartSchema),
  contextId: z.optional(z.string()),
  taskId: z.optional(z.string()),
  metadata: z.optional(StructSchema),
  extensions: z.optional(z.array(z.string())),
  referenceTaskIds: z.optional(z.array(z.string())),
});
export type V03Message = z.infer<typeof V03MessageSchema>;

export const V03TaskStateSchema = /*#__PURE__*/ z.enum([
  'submitted',
  'working',
  'input-required',
  'completed',
  'canceled',
  'failed',
  'rejected',
  'auth-required',
  'unknown',
]);
export type V03TaskState = z.infer<typeof V03TaskStateSchema>;

export const V03TaskStatusSchema = /*#__PURE__*/ z.object({
  state: V03TaskStateSchema,
  message: z.optional(V03MessageSchema),
  /** ISO 8601; v0.3 did not insist on UTC. */
  timestamp: z.optional(z.string()),
});
export type V03TaskStatus = z.infer<typeof V03TaskStatusSchema>;

export const V03ArtifactSchema = /*#__PURE__*/ z.object({
  artifactId: z.string(),
  name: z.optional(z.string()),
  description: z.optional(z.string()),
  parts: z.array(V03PartSchema),
  metadata: z.optional(StructSchema),
  extensions: z.optional(z.array(z.string())),
});
export type V03Artifact = z.infer<typeof V03ArtifactSchema>;

export const V03TaskSchema = /*#__PURE__*/ z.object({
  kind: z.literal('task'),
  id: z.string(),
  contextId: z.string(),
  status: V03TaskStatusSchema,
  artifacts: z.optional(z.array(V03ArtifactSchema)),
  history: z.optional(z.array(V03MessageSchema)),
  metadata: z.optional(StructSchema),
});
export type V03Task = z.infer<typeof V03TaskSchema>;

export const V03TaskStatusUpdateEventSchema = /*#__PURE__*/ z.object({
  kind: z.literal('status-update'),
  taskId: z.string(),
  contextId: z.string(),
  status: V03TaskStatusSchema,
  final: z.boolean(),
  metadata: z.optional(StructSchema),
});
export type V03TaskStatusUpdateEvent = z.infer<typeof V03TaskStatusUpdateEventSchema>;

export const V03TaskArtifactUpdateEventSchema = /*#__PURE__*/ z.object({
  kind: z.literal('artifact-update'),
  taskId: z.string(),
  contextId: z.string(),
  artifact: V03ArtifactSchema,
  append: z.optional(z.boolean()),
  lastChunk: z.optional(z.boolean()),
  metadata: z.optional(StructSchema),
});
export type V03TaskArtifactUpdateEvent = z.infer<typeof V03TaskArtifactUpdateEventSchema>;

/** The result of `message/send`: a task or a direct reply. */
export const V03SendMessageResultSchema = /*#__PURE__*/ z.discriminatedUnion('kind', [V03TaskSchema, V03MessageSchema]);
export type V03SendMessageResult = z.infer<typeof V03SendMessageResultSchema>;

/** One event of `message/stream` or `tasks/resubscribe`. */
export const V03StreamEventSchema = /*#__PURE__*/ z.discriminatedUnion('kind', [
  V03TaskSchema,
  V03MessageSchema,
  V03TaskStatusUpdateEventSchema,
  V03TaskArtifactUpdateEventSchema,
]);
export type V03StreamEvent = z.infer<typeof V03StreamEventSchema>;

export const V03PushNotificationAuthenticationInfoSchema = /*#__PURE__*/ z.object({
  schemes: z.array(z.string()),
  credentials: z.optional(z.string()),
});
export type V03PushNotificationAuthenticationInfo = z.infer<typeof V03PushNotificationAuthenticationInfoSchema>;

export const V03PushNotificationConfigSchema = /*#__PURE__*/ z.object({
  url: z.string(),
  id: z.optional(z.string()),
  token: z.optional(z.string()),
  authentication: z.optional(V03PushNotificationAuthenticationInfoSchema),
});
export type V03PushNotificationConfig = z.infer<typeof V03PushNotificationConfigSchema>;

export const V03TaskPushNotificationConfigSchema = /*#__PURE__*/ z.object({
  taskId: z.string(),
  pushNotificationConfig: V03PushNotificationConfigSchema,
});
export type V03TaskPushNotificationConfig = z.infer<typeof V03TaskPushNotificationConfigSchema>;

export const V03MessageSendConfigurationSchema = /*#__PURE__*/ z.object({
  acceptedOutputModes: z.optional(z.array(z.string())),
  blocking: z.optional(z.boolean()),
  historyLength: z.optional(z.number().check(z.int())),
  pushNotificationConfig: z.optional(V03PushNotificationConfigSchema),
});
export type V03MessageSendConfiguration = z.infer<typeof V03MessageSendConfigurationSchema>;

export const V03MessageSendParamsSchema = /*#__PURE__*/ z.object({
  message: V03MessageSchema,
  configuration: z.optional(V03MessageSendConfigurationSchema),
  metadata: z.optional(StructSchema),
});
export type V03MessageSendParams = z.infer<typeof V03MessageSendParamsSchema>;

export const V03TaskQueryParamsSchema = /*#__PURE__*/ z.object({
  id: z.string(),
  historyLength: z.optional(z.number().check(z.int())),
  metadata: z.optional(StructSchema),
});
export type V03TaskQueryParams = z.infer<typeof V03TaskQueryParamsSchema>;

export const V03TaskIdParamsSchema = /*#__PURE__*/ z.object({
  id: z.string(),
  metadata: z.optional(StructSchema),
});
export type V03TaskIdParams = z.infer<typeof V03TaskIdParamsSchema>;

export const V03GetTaskPushNotificationConfigParamsSchema = /*#__PURE__*/ z.object({
  id: z.string(),
  pushNotificationConfigId: z.optional(z.string()),
  metadata: z.optional(StructSchema),
});
export type V03GetTaskPushNotificationConfigParams = z.infer<typeof V03GetTaskPushNotificationConfigParamsSchema>;

export const V03ListTaskPushNotificationConfigParamsSchema = V03TaskIdParamsSchema;
export type V03ListTaskPushNotificationConfigParams = V03TaskIdParams;

export const V03DeleteTaskPushNotificationConfigParamsSchema = /*#__PURE__*/ z.object({
  id: z.string(),
  pushNotificationConfigId: z.string(),
  metadata: z.optional(StructSchema),
});
export type V03DeleteTaskPushNotificationConfigParams = z.infer<typeof V03DeleteTaskPushNotificationConfigParamsSchema>;

// Security schemes (OpenAPI 3.0 style, discriminated by `type`).
const ScopesSchema = /*#__PURE__*/ z.record(z.string(), z.string());
export const V03OAuthFlowsSchema = /*#__PURE__*/ z.object({
  authorizationCode: z.optional(
    z.object({ authorizationUrl: z.string(), tokenUrl: z.string(), refreshUrl: z.optional(z.string()), scopes: ScopesSchema }),
  ),
  clientCredentials: z.optional(z.object({ tokenUrl: z.string(), refreshUrl: z.optional(z.string()), scopes: ScopesSchema })),
  implicit: z.optional(z.object({ authorizationUrl: z.string(), refreshUrl: z.optional(z.string()), scopes: ScopesSchema })),
  password: z.optional(z.object({ tokenUrl: z.string(), refreshUrl: z.optional(z.string()), scopes: ScopesSchema })),
});
export type V03OAuthFlows = z.infer<typeof V03OAuthFlowsSchema>;

export const V03SecuritySchemeSchema = /*#__PURE__*/ z.discriminatedUnion('type', [
  z.object({
    type: z.literal('apiKey'),
    in: z.enum(['cookie', 'header', 'query']),
    name: z.string(),
    description: z.optional(z.string()),
  }),
  z.object({
    type: z.literal('http'),
    scheme: z.string(),
    bearerFormat: z.optional(z.string()),
    description: z.optional(z.string()),
  }),
  z.object({
    type: z.literal('oauth2'),
    flows: V03OAuthFlowsSchema,
    oauth2MetadataUrl: z.optional(z.string()),
    description: z.optional(z.string()),
  }),
  z.object({ type: z.literal('openIdConnect'), openIdConnectUrl: z.string(), description: z.optional(z.string()) }),
  z.object({ type: z.literal('mutualTLS'), description: z.optional(z.string()) }),
]);
export type V03SecurityScheme = z.infer<typeof V03SecuritySchemeSchema>;

/** OpenAPI security requirement: scheme name -> scopes. */
export const V03SecurityRequirementSchema = /*#__PURE__*/ z.record(z.string(), z.array(z.string()));
export type V03SecurityRequirement = z.infer<typeof V03SecurityRequirementSchema>;

export const V03AgentInterfaceSchema = /*#__PURE__*/ z.object({ url: z.string(), transport: z.string() });
export type V03AgentInterface = z.infer<typeof V03AgentInterfaceSchema>;

export const V03AgentExtensionSchema = /*#__PURE__*/ z.object({
  uri: z.string(),
  description: z.optional(z.string()),
  required: z.optional(z.boolean()),
  params: z.optional(StructSchema),
});
export type V03AgentExtension = z.infer<typeof V03AgentExtensionSchema>;

export const V03AgentCapabilitiesSchema = /*#__PURE__*/ z.object({
  streaming: z.optional(z.boolean()),
  pushNotifications: z.optional(z.boolean()),
  stateTransitionHistory: z.optional(z.boolean()),
  extensions: z.optional(z.array(V03AgentExtensionSchema)),
});
export type V03AgentCapabilities = z.infer<typeof V03AgentCapabilitiesSchema>;

export const V03AgentSkillSchema = /*#__PURE__*/ z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  examples: z.optional(z.array(z.string())),
  inputModes: z.optional(z.array(z.string())),
  outputModes: z.optional(z.array(z.string())),
  security: z.optional(z.array(V03SecurityRequirementSchema)),
});
export type V03AgentSkill = z.infer<typeof V03AgentSkillSchema>;

export const V03AgentCardSignatureSchema = /*#__PURE__*/ z.object({
  protected: z.string(),
  signature: z.string(),
  header: z.optional(StructSchema),
});

export const V03AgentCardSchema = /*#__PURE__*/ z.object({
  name: z.string(),
  description: z.string(),
  url: z.string(),
  version: z.string(),
  protocolVersion: z.string(),
  preferredTransport: z.optional(z.string()),
  additionalInterfaces: z.optional(z.array(V03AgentInterfaceSchema)),
  provider: z.optional(z.object({ organization: z.string(), url: z.string() })),
  iconUrl: z.optional(z.string()),
  documentationUrl: z.optional(z.string()),
  capabilities: V03AgentCapabilitiesSchema,
  securitySchemes: z.optional(z.record(z.string(), V03SecuritySchemeSchema)),
  security: z.optional(z.array(V03SecurityRequirementSchema)),
  defaultInputModes: z.array(z.string()),
  defaultOutputModes: z.array(z.string()),
  skills: z.array(V03AgentSkillSchema),
  supportsAuthenticatedExtendedCard: z.optional(z.boolean()),
  signatures: z.optional(z.array(V03AgentCardSignatureSchema)),
});
export type V03AgentCard = z.infer<typeof V03AgentCardSchema>;

/** A v0.3 JSON-RPC error object; `data` is free-form in v0.3 (v1.0 puts `google.rpc` details there). */
export const V03JsonRpcErrorSchema = /*#__PURE__*/ z.object({
  code: z.number().check(z.int()),
  message: z.string(),
  data: z.optional(z.unknown()),
});
export type V03JsonRpcError = z.infer<typeof V03JsonRpcErrorSchema>;
