import { CircuitBreaker as CircuitBreakerClass } from './circuit-breaker.js';
export {
  createCircuitBreaker,
  type CircuitBreakerOptions,
  type CircuitState,
  DEFAULT_COOLDOWN_MS,
  DEFAULT_FAILURE_THRESHOLD,
} from './circuit-breaker.js';
export {
  A2A_ERROR_DOMAIN,
  A2A_EXTENSIONS_HEADER,
  A2A_LEGACY_PROTOCOL_VERSION,
  A2A_PROTOCOL_VERSION,
  A2A_SUPPORTED_PROTOCOL_VERSIONS,
  A2A_VERSION_HEADER,
  A2APLANE_ERROR_DOMAIN,
  BAD_REQUEST_TYPE,
  DEFAULT_JSON_RPC_PATH,
  DEFAULT_REST_PATH,
  ERROR_INFO_TYPE,
  LEGACY_WELL_KNOWN_AGENT_CARD_PATH,
  MEDIA_TYPE_A2A_JSON,
  MEDIA_TYPE_EVENT_STREAM,
  MEDIA_TYPE_JSON,
  PROTOCOL_BINDING,
  type ProtocolBinding,
  WELL_KNOWN_AGENT_CARD_PATH,
} from './constants.js';
export { describeValue } from './describe-value.js';
export { createErrorBrand, type ErrorBrand, isA2AError } from './errors/brand.js';
export {
  A2AError,
  type A2AErrorOptions,
  type RestErrorBody,
} from './errors/a2a-error.js';
export {
  type A2AErrorClass,
  BudgetExceededError,
  ContentTypeNotSupportedError,
  ERROR_CLASSES,
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  ForbiddenError,
  InternalError,
  InvalidAgentResponseError,
  InvalidParamsError,
  InvalidRequestError,
  JSONParseError,
  MethodNotFoundError,
  PolicyViolationError,
  PushNotificationNotSupportedError,
  RateLimitedError,
  RecursionLimitError,
  ServiceUnavailableError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnauthenticatedError,
  UnsupportedOperationError,
  VersionNotSupportedError,
} from './errors/classes.js';
export {
  CONTROL_PLANE_ERROR_CODE,
  ERROR_CODE_TABLE,
  type ErrorCodeEntry,
  type ErrorReason,
  type GrpcStatus,
  JSON_RPC_ERROR_CODES,
} from './errors/codes.js';
export {
  fromJsonRpcError,
  fromRestError,
} from './errors/convert.js';
export {
  type ErrorDetail,
  type ErrorInfoDetail,
  findErrorInfo,
} from './errors/error-info.js';
export {
  type ClassifiedRequest,
  classifyJsonRpcRequest,
  createJsonRpcError,
  createJsonRpcRequest,
  createJsonRpcSuccess,
  type EnvelopeOptions,
  JSON_RPC_VERSION,
  type JsonRpcEnvelope,
  type JsonRpcErrorObject,
  type JsonRpcErrorResponse,
  type JsonRpcId,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type JsonRpcResponseOutcome,
  type JsonRpcResultOutcome,
  type JsonRpcSuccessResponse,
  parseOperationParams,
  parseOperationResult,
  readJsonRpcEnvelope,
  readJsonRpcResponse,
  readJsonRpcResult,
} from './json-rpc.js';
export {
  type AgentCapabilities,
  AgentCapabilitiesSchema,
  type AgentCard,
  AgentCardSchema,
  type AgentCardSignature,
  AgentCardSignatureSchema,
  type AgentExtension,
  AgentExtensionSchema,
  type AgentInterface,
  AgentInterfaceSchema,
  type AgentProvider,
  AgentProviderSchema,
  type AgentSkill,
  AgentSkillSchema,
} from './model/agent-card.js';
export {
  type Message,
  MessageSchema,
  type Role,
  RoleSchema,
} from './model/message.js';
export {
  type OneOf,
  oneOfObject,
} from './model/one-of.js';
export {
  type DataPart,
  type Part,
  type PartContentField,
  partKind,
  PartSchema,
  type RawPart,
  type TextPart,
  type UrlPart,
} from './model/part.js';
export {
  BytesSchema,
  IdSchema,
  Int32Schema,
  nonEmptyArray,
  repeated,
  type Struct,
  StructSchema,
  type Timestamp,
  TimestampSchema,
  toUtcTimestamp,
} from './model/primitives.js';
export {
  type AuthenticationInfo,
  AuthenticationInfoSchema,
  type TaskPushNotificationConfig,
  TaskPushNotificationConfigSchema,
} from './model/push.js';
export {
  type CancelTaskRequest,
  CancelTaskRequestSchema,
  type CreateTaskPushNotificationConfigRequest,
  CreateTaskPushNotificationConfigRequestSchema,
  type DeleteTaskPushNotificationConfigRequest,
  DeleteTaskPushNotificationConfigRequestSchema,
  type Empty,
  EmptySchema,
  type GetExtendedAgentCardRequest,
  GetExtendedAgentCardRequestSchema,
  type GetTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequestSchema,
  type GetTaskRequest,
  GetTaskRequestSchema,
  type ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsRequestSchema,
  type ListTaskPushNotificationConfigsResponse,
  ListTaskPushNotificationConfigsResponseSchema,
  type ListTasksRequest,
  ListTasksRequestSchema,
  type ListTasksResponse,
  ListTasksResponseSchema,
  type SendMessageConfiguration,
  SendMessageConfigurationSchema,
  type SendMessageRequest,
  SendMessageRequestSchema,
  type SendMessageResponse,
  SendMessageResponseSchema,
  type StreamResponse,
  StreamResponseSchema,
  type SubscribeToTaskRequest,
  SubscribeToTaskRequestSchema,
} from './model/requests.js';
export {
  type APIKeySecurityScheme,
  APIKeySecuritySchemeSchema,
  AuthorizationCodeOAuthFlowSchema,
  ClientCredentialsOAuthFlowSchema,
  DeviceCodeOAuthFlowSchema,
  type HTTPAuthSecurityScheme,
  HTTPAuthSecuritySchemeSchema,
  ImplicitOAuthFlowSchema,
  type MutualTlsSecurityScheme,
  MutualTlsSecuritySchemeSchema,
  type OAuth2SecurityScheme,
  OAuth2SecuritySchemeSchema,
  type OAuthFlows,
  OAuthFlowsSchema,
  type OpenIdConnectSecurityScheme,
  OpenIdConnectSecuritySchemeSchema,
  PasswordOAuthFlowSchema,
  type SecurityRequirement,
  SecurityRequirementSchema,
  type SecurityScheme,
  SecuritySchemeSchema,
  type StringList,
  StringListSchema,
} from './model/security.js';
export {
  INTERRUPTED_TASK_STATES,
  isInterruptedTaskState,
  isTerminalTaskState,
  TERMINAL_TASK_STATES,
} from './model/task-states.js';
export {
  type Artifact,
  ArtifactSchema,
  type Task,
  type TaskArtifactUpdateEvent,
  TaskArtifactUpdateEventSchema,
  TaskSchema,
  type TaskState,
  TaskStateSchema,
  type TaskStatus,
  TaskStatusSchema,
  type TaskStatusUpdateEvent,
  TaskStatusUpdateEventSchema,
} from './model/task.js';
// The zod-free names straight from methods.js: a bundler then never reaches the schemas through them.
export {
  A2A_METHODS,
  type A2AMethod,
  type HttpVerb,
  isA2AMethod,
  OPERATION_MESSAGES,
  type QueryParamKind,
  type RestBinding,
} from './methods.js';
export { type A2ARequestMap, type A2AResultMap, type OperationDescriptor, OPERATIONS } from './operations.js';
export { fromProtoJson, type ProtoMessageName, protoFieldNames } from './proto-json.js';
export {
  parseAgentCard,
  parseArtifact,
  parseMessage,
  parsePart,
  parseProtoJson,
  parseSendMessageRequest,
  parseSendMessageResponse,
  parseStreamResponse,
  parseTask,
  parseTaskPushNotificationConfig,
} from './parse.js';
export {
  buildRestPath,
  matchRestRoute,
  paramsToRestRequest,
  type RestRequestParts,
  restRequestToParams,
  type RestRouteMatch,
} from './rest-routes.js';
export {
  readRuvectorCardParams,
  type RuvectorCardParams,
  RuvectorCardParamsSchema,
  type RuvectorMemoryParams,
  RuvectorMemoryParamsSchema,
} from './ruvector.js';
export {
  readRuvectorMetadata,
  RUVECTOR_EXTENSION_URI,
  RUVECTOR_KEYS,
  RUVECTOR_NAMESPACE,
  withRuvectorMetadata,
} from './ruvector-metadata.js';
export { applyStreamResponse } from './task-aggregation.js';
export {
  formatTraceparent,
  generateSpanId,
  generateTraceId,
  isSpanId,
  isTraceId,
  parseTraceparent,
  type TaskContext,
  type TaskContextWire,
  taskContextFromWire,
  taskContextToWire,
  traceparentFor,
  withTaskContext,
  writeTaskContext,
} from './task-context.js';
export {
  type BadRequestDetail,
  createValidationFailure,
  type FieldViolation,
  formatFieldPath,
  type ParseResult,
  parseWith,
  type ValidationFailure,
} from './validation.js';

/** A circuit breaker per peer. Made by `createCircuitBreaker`. */
export type CircuitBreaker = CircuitBreakerClass;
/** @deprecated use `createCircuitBreaker`; the class stays for one minor release. */
export const CircuitBreaker: typeof CircuitBreakerClass = CircuitBreakerClass;
