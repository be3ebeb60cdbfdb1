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

/** `[jsonRpcCode, httpStatus, grpcStatus, message, retryable]`: one row per reason, as data. */
type ErrorRow = readonly [number, number, GrpcStatus, string, 1?];

/**
 * The one table that maps reason -> JSON-RPC code -> HTTP status (spec §5.4, §9.5; architecture
 * guide for the control-plane reasons). The domain follows from the code: -32000 is the control
 * plane's. Every error class reads its numbers from here.
 */
const ROWS = {
  // JSON-RPC 2.0 (spec §9.5)
  JSON_PARSE: [-32700, 400, 'INVALID_ARGUMENT', 'Invalid JSON payload'],
  INVALID_REQUEST: [-32600, 400, 'INVALID_ARGUMENT', 'Request payload validation error'],
  METHOD_NOT_FOUND: [-32601, 404, 'UNIMPLEMENTED', 'Method not found'],
  INVALID_PARAMS: [-32602, 400, 'INVALID_ARGUMENT', 'Invalid parameters'],
  INTERNAL: [-32603, 500, 'INTERNAL', 'Internal error', 1],
  // A2A (spec §3.3.2, §5.4)
  TASK_NOT_FOUND: [-32001, 404, 'NOT_FOUND', 'Task not found'],
  TASK_NOT_CANCELABLE: [-32002, 400, 'FAILED_PRECONDITION', 'Task cannot be canceled'],
  PUSH_NOTIFICATION_NOT_SUPPORTED: [-32003, 400, 'FAILED_PRECONDITION', 'Push notifications are not supported'],
  UNSUPPORTED_OPERATION: [-32004, 400, 'FAILED_PRECONDITION', 'This operation is not supported'],
  CONTENT_TYPE_NOT_SUPPORTED: [-32005, 400, 'INVALID_ARGUMENT', 'Incompatible content types'],
  INVALID_AGENT_RESPONSE: [-32006, 500, 'INTERNAL', 'Invalid agent response'],
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: [-32007, 400, 'FAILED_PRECONDITION', 'Extended agent card is not configured'],
  EXTENSION_SUPPORT_REQUIRED: [-32008, 400, 'FAILED_PRECONDITION', 'A required extension was not declared by the client'],
  VERSION_NOT_SUPPORTED: [-32009, 400, 'FAILED_PRECONDITION', 'Protocol version is not supported'],
  // Control plane (architecture guide, "Errors")
  BUDGET_EXCEEDED: [-32000, 429, 'RESOURCE_EXHAUSTED', 'Global budget exceeded', 1],
  RECURSION_LIMIT: [-32000, 403, 'PERMISSION_DENIED', 'Recursion limit reached'],
  POLICY_VIOLATION: [-32000, 403, 'PERMISSION_DENIED', 'Task policy violated'],
  RATE_LIMITED: [-32000, 429, 'RESOURCE_EXHAUSTED', 'Rate limit exceeded', 1],
  UNAUTHENTICATED: [-32000, 401, 'UNAUTHENTICATED', 'Authentication required'],
  FORBIDDEN: [-32000, 403, 'PERMISSION_DENIED', 'Permission denied'],
  SERVICE_UNAVAILABLE: [-32000, 503, 'UNAVAILABLE', 'A backend the server depends on is unavailable', 1],
} as const satisfies Record<string, ErrorRow>;

export type ErrorReason = keyof typeof ROWS;

function buildTable(): { readonly [R in ErrorReason]: ErrorCodeEntry } {
  const table: Record<string, ErrorCodeEntry> = {};
  for (const reason in ROWS) {
    const [jsonRpcCode, httpStatus, grpcStatus, message, retryable] = ROWS[reason as ErrorReason] as ErrorRow;
    const domain = jsonRpcCode === CONTROL_PLANE_ERROR_CODE ? A2APLANE_ERROR_DOMAIN : A2A_ERROR_DOMAIN;
    table[reason] = { reason, domain, jsonRpcCode, httpStatus, grpcStatus, message, retryable: retryable === 1 };
  }
  return table as { readonly [R in ErrorReason]: ErrorCodeEntry };
}

/** Every reason's entry: reason, domain, JSON-RPC code, HTTP and gRPC status, standard message, retryable. */
export const ERROR_CODE_TABLE = /*#__PURE__*/ buildTable();
