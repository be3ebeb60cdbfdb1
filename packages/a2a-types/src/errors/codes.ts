import { A2APLANE_ERROR_DOMAIN, A2A_ERROR_DOMAIN } from '../constants.js';

/** Standard JSON-RPC 2.0 error codes. */
export const JSON_RPC_ERROR_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
} as const;

/** The JSON-RPC code of every control-plane rejection: outside the -32001..-32099 range A2A reserves. */
export const CONTROL_PLANE_ERROR_CODE = -32000;

/** gRPC canonical status names, used in the `status` field of REST errors (spec §11.6). */
export type GrpcStatus =
  | 'INVALID_ARGUMENT'
  | 'NOT_FOUND'
  | 'FAILED_PRECONDITION'
  | 'INTERNAL'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  | 'RESOURCE_EXHAUSTED'
  | 'UNIMPLEMENTED'
  | 'UNAVAILABLE';

export interface ErrorCodeEntry {
  /** `ErrorInfo.reason`: the error type in UPPER_SNAKE_CASE without the `Error` suffix. */
  reason: string;
  domain: string;
  jsonRpcCode: number;
  httpStatus: number;
  grpcStatus: GrpcStatus;
  /** The standard message of the error. */
  message: string;
  /** Whether trying again later may succeed. */
  retryable: boolean;
}

const entry = (
  reason: string,
  domain: string,
  jsonRpcCode: number,
  httpStatus: number,
  grpcStatus: GrpcStatus,
  message: string,
  retryable = false,
): ErrorCodeEntry => ({ reason, domain, jsonRpcCode, httpStatus, grpcStatus, message, retryable });

/**
 * The one table that maps reason -> JSON-RPC code -> HTTP status (spec §5.4, §9.5; architecture
 * guide for the control-plane reasons). Every error class reads its numbers from here.
 */
export const ERROR_CODE_TABLE = {
  // JSON-RPC 2.0 (spec §9.5)
  JSON_PARSE: entry('JSON_PARSE', A2A_ERROR_DOMAIN, -32700, 400, 'INVALID_ARGUMENT', 'Invalid JSON payload'),
  INVALID_REQUEST: entry('INVALID_REQUEST', A2A_ERROR_DOMAIN, -32600, 400, 'INVALID_ARGUMENT', 'Request payload validation error'),
  METHOD_NOT_FOUND: entry('METHOD_NOT_FOUND', A2A_ERROR_DOMAIN, -32601, 404, 'UNIMPLEMENTED', 'Method not found'),
  INVALID_PARAMS: entry('INVALID_PARAMS', A2A_ERROR_DOMAIN, -32602, 400, 'INVALID_ARGUMENT', 'Invalid parameters'),
  INTERNAL: entry('INTERNAL', A2A_ERROR_DOMAIN, -32603, 500, 'INTERNAL', 'Internal error', true),
  // A2A (spec §3.3.2, §5.4)
  TASK_NOT_FOUND: entry('TASK_NOT_FOUND', A2A_ERROR_DOMAIN, -32001, 404, 'NOT_FOUND', 'Task not found'),
  TASK_NOT_CANCELABLE: entry('TASK_NOT_CANCELABLE', A2A_ERROR_DOMAIN, -32002, 400, 'FAILED_PRECONDITION', 'Task cannot be canceled'),
  PUSH_NOTIFICATION_NOT_SUPPORTED: entry(
    'PUSH_NOTIFICATION_NOT_SUPPORTED',
    A2A_ERROR_DOMAIN,
    -32003,
    400,
    'FAILED_PRECONDITION',
    'Push notifications are not supported',
  ),
  UNSUPPORTED_OPERATION: entry(
    'UNSUPPORTED_OPERATION',
    A2A_ERROR_DOMAIN,
    -32004,
    400,
    'FAILED_PRECONDITION',
    'This operation is not supported',
  ),
  CONTENT_TYPE_NOT_SUPPORTED: entry(
    'CONTENT_TYPE_NOT_SUPPORTED',
    A2A_ERROR_DOMAIN,
    -32005,
    400,
    'INVALID_ARGUMENT',
    'Incompatible content types',
  ),
  INVALID_AGENT_RESPONSE: entry('INVALID_AGENT_RESPONSE', A2A_ERROR_DOMAIN, -32006, 500, 'INTERNAL', 'Invalid agent response'),
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: entry(
    'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
    A2A_ERROR_DOMAIN,
    -32007,
    400,
    'FAILED_PRECONDITION',
    'Extended agent card is not configured',
  ),
  EXTENSION_SUPPORT_REQUIRED: entry(
    'EXTENSION_SUPPORT_REQUIRED',
    A2A_ERROR_DOMAIN,
    -32008,
    400,
    'FAILED_PRECONDITION',
    'A required extension was not declared by the client',
  ),
  VERSION_NOT_SUPPORTED: entry(
    'VERSION_NOT_SUPPORTED',
    A2A_ERROR_DOMAIN,
    -32009,
    400,
    'FAILED_PRECONDITION',
    'Protocol version is not supported',
  ),
  // Control plane (architecture guide, "Errors")
  BUDGET_EXCEEDED: entry('BUDGET_EXCEEDED', A2APLANE_ERROR_DOMAIN, -32000, 429, 'RESOURCE_EXHAUSTED', 'Global budget exceeded', true),
  RECURSION_LIMIT: entry('RECURSION_LIMIT', A2APLANE_ERROR_DOMAIN, -32000, 403, 'PERMISSION_DENIED', 'Recursion limit reached'),
  POLICY_VIOLATION: entry('POLICY_VIOLATION', A2APLANE_ERROR_DOMAIN, -32000, 403, 'PERMISSION_DENIED', 'Task policy violated'),
  RATE_LIMITED: entry('RATE_LIMITED', A2APLANE_ERROR_DOMAIN, -32000, 429, 'RESOURCE_EXHAUSTED', 'Rate limit exceeded', true),
  UNAUTHENTICATED: entry('UNAUTHENTICATED', A2APLANE_ERROR_DOMAIN, -32000, 401, 'UNAUTHENTICATED', 'Authentication required'),
  FORBIDDEN: entry('FORBIDDEN', A2APLANE_ERROR_DOMAIN, -32000, 403, 'PERMISSION_DENIED', 'Permission denied'),
  SERVICE_UNAVAILABLE: entry(
    'SERVICE_UNAVAILABLE',
    A2APLANE_ERROR_DOMAIN,
    -32000,
    503,
    'UNAVAILABLE',
    'A backend the server depends on is unavailable',
    true,
  ),
} as const satisfies Record<string, ErrorCodeEntry>;

export type ErrorReason = keyof typeof ERROR_CODE_TABLE;
