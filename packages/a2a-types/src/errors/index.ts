export { createErrorBrand, type ErrorBrand } from './brand.js';
export { isA2AError } from './is-a2a-error.js';
export { A2AError, type A2AErrorOptions, type RestErrorBody } from './a2a-error.js';
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
} from './classes.js';
export {
  CONTROL_PLANE_ERROR_CODE,
  ERROR_CODE_TABLE,
  type ErrorCodeEntry,
  type ErrorReason,
  type GrpcStatus,
  JSON_RPC_ERROR_CODES,
} from './codes.js';
export { fromJsonRpcError, fromRestError } from './convert.js';
export { type ErrorDetail, type ErrorInfoDetail, findErrorInfo } from './error-info.js';
