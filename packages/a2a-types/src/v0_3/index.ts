/**
 * A2A v0.3 compatibility: zod schemas of the v0.3 wire shapes and translators to and from v1.0.
 * `xFromV03(input)` validate untrusted v0.3 JSON and return a v1.0 `ParseResult`; `xToV03(value)`
 * turn a valid v1.0 value into its v0.3 shape. Lossy corners: docs/v0_3-compatibility.md.
 */
export const V0_3_PROTOCOL_VERSION = '0.3';

export {
  V0_3_CARD_PROTOCOL_VERSION,
  agentCardFromV03Value,
  agentCardToV03,
  securityRequirementFromV03,
  securityRequirementToV03,
  securitySchemeFromV03,
  securitySchemeToV03,
} from './agent-card.js';
export {
  V03_ERROR_CODES,
  V03_METHOD_NAMES,
  V03_OPERATIONS,
  type V03Method,
  type V03OperationTranslator,
  type V03RequestMap,
  type V03ResultMap,
  classifyV03JsonRpcRequest,
  errorFromV03,
  errorToV03,
  isV03Method,
  methodFromV03,
  methodToV03,
  sendParamsFromV03,
  sendParamsToV03,
} from './operations.js';
export {
  agentCardFromV03,
  artifactFromV03,
  artifactUpdateFromV03,
  messageFromV03,
  partFromV03,
  pushConfigFromV03,
  sendMessageResultFromV03,
  statusUpdateFromV03,
  streamEventFromV03,
  taskFromV03,
  taskPushConfigFromV03,
  taskStatusFromV03,
} from './parse.js';
export * from './schemas.js';
export {
  DATA_PART_COMPAT_FLAG,
  artifactFromV03Value,
  artifactToV03,
  artifactUpdateFromV03Value,
  artifactUpdateToV03,
  authenticationFromV03Value,
  authenticationToV03,
  messageFromV03Value,
  messageToV03,
  partFromV03Value,
  partToV03,
  pushConfigFromV03Value,
  pushConfigToV03,
  roleFromV03,
  roleToV03,
  sendMessageResponseToV03,
  sendMessageResultFromV03Value,
  statusFromV03Value,
  statusToV03,
  statusUpdateFromV03Value,
  statusUpdateToV03,
  streamEventFromV03Value,
  streamResponseToV03,
  taskFromV03Value,
  taskPushConfigFromV03Value,
  taskPushConfigToV03,
  taskStateFromV03,
  taskStateToV03,
  taskToV03,
  translateFromV03,
} from './translate.js';
