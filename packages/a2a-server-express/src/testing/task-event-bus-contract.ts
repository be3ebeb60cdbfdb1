import type { ContractTestApi } from './contract-api.js';
import { busFixture, type TaskEventBusContractOptions } from './task-event-bus/fixture.js';
import { idAndReplayContract } from './task-event-bus/ids-and-replay.js';
import { liveContract } from './task-event-bus/live.js';
import { cancelContract } from './task-event-bus/cancel.js';

export type { TaskEventBusContractBackend, TaskEventBusContractOptions } from './task-event-bus/fixture.js';

/**
 * The `TaskEventBus` contract: ids increasing per task and usable to resume, replay after an id,
 * live delivery, lossless resume, the end of a subscription, and cancel fan-out, all seen
 * across two buses of one backend (two replicas). Every implementation runs it (the in-memory
 * bus in this package, the Redis Streams bus in `@a2aplane/a2a-redis`).
 */
export function describeTaskEventBusContract(name: string, options: TaskEventBusContractOptions, t: ContractTestApi): void {
  const fixture = busFixture(options);
  t.describe(`TaskEventBus contract: ${name}`, () => {
    t.afterEach(async () => {
      for (const bus of fixture.buses.splice(0)) await bus.close();
      for (const backend of fixture.backends.splice(0)) await backend.dispose?.();
    });
    idAndReplayContract(t, fixture);
    liveContract(t, fixture);
    cancelContract(t, fixture);
  });
}
