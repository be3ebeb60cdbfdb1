export * from './attributes.js';
export { type ClientInstrumentationOptions, createClientInterceptors } from './client.js';
export { DURATION_BUCKETS_S } from './metrics.js';
export { type A2AServerInstrumentation, createServerInstrumentation, type ServerInstrumentationOptions } from './server.js';
export type {
  BudgetView,
  CallEnd,
  CallInterceptors,
  CallStart,
  ExecutionContext,
  ExecutionEnd,
  ExecutionObserverLike,
  OperationRequest,
  OperationResponse,
  PushEvent,
  StageFinish,
  StageHooks,
  StageStart,
} from './types.js';
