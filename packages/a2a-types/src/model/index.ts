export * from './agent-card.js';
export * from './message.js';
export { type OneOf, oneOfObject } from './one-of.js';
export * from './part.js';
export * from './primitives.js';
export * from './push.js';
export * from './requests.js';
export * from './security.js';
export * from './task.js';
export {
  INTERRUPTED_TASK_STATES,
  isInterruptedTaskState,
  isTerminalTaskState,
  TERMINAL_TASK_STATES,
} from './task-states.js';
