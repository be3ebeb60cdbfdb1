// Task states without zod, so that code reading states (the client's stream loop) does not pull in the schemas.

// Every state but TASK_STATE_UNSPECIFIED, which a TaskStatus must not carry.
export const SET_TASK_STATES = [
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
] as const;
/** The same union as `TaskState` (`z.infer<typeof TaskStateSchema>`). */
type TaskStateName = 'TASK_STATE_UNSPECIFIED' | (typeof SET_TASK_STATES)[number];

/** States after which a task never changes again. */
export const TERMINAL_TASK_STATES: ReadonlySet<TaskStateName> = new Set([
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_REJECTED',
]);
/** States in which a task waits for the client (blocking SendMessage returns on these too, spec §3.2.2). */
export const INTERRUPTED_TASK_STATES: ReadonlySet<TaskStateName> = new Set(['TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED']);

export const isTerminalTaskState = (state: TaskStateName): boolean => TERMINAL_TASK_STATES.has(state);
export const isInterruptedTaskState = (state: TaskStateName): boolean => INTERRUPTED_TASK_STATES.has(state);
