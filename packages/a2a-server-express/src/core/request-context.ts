import type { Message, Task } from '@a2aplane/a2a-types';
import type { RequestContext, TaskContextLike } from '../agent/executor.js';
import type { ExecutionSignal } from './execution-signal.js';
import { activateExtension } from './extension-activation.js';
import type { Principal } from './types.js';

/**
 * The `RequestContext` an executor gets. A class, so that `signal` can be a getter that makes the
 * AbortSignal on first read without the cost of an object literal with an accessor; the getter
 * lives on the prototype, so a spread copy of the context has no `signal` (pass the context on).
 */
export class ExecutorRequestContext implements RequestContext {
  /** A true private field: not enumerable, not copied, not serialised. */
  readonly #execution: ExecutionSignal;

  constructor(
    readonly message: Message,
    readonly task: Task | undefined,
    readonly taskId: string,
    readonly contextId: string,
    readonly principal: Principal | undefined,
    readonly tenant: string,
    readonly version: string,
    readonly extensions: readonly string[],
    readonly skillId: string | undefined,
    readonly acceptedOutputModes: readonly string[] | undefined,
    readonly taskContext: TaskContextLike | undefined,
    execution: ExecutionSignal,
  ) {
    this.#execution = execution;
  }

  get signal(): AbortSignal {
    return this.#execution.signal;
  }

  activateExtension(uri: string): boolean {
    return activateExtension(this.extensions, uri);
  }
}
