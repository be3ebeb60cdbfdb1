import { afterEach, describe, it } from 'vitest';
import { createInMemoryPushOutbox, createInMemoryTaskEventBackend, createInMemoryTaskEventBus, InMemoryTaskStore } from '../src/index.js';
import {
  describePushOutboxContract,
  describeTaskAdmissionContract,
  describeTaskEventBusContract,
  describeTaskStoreContract,
} from '../src/testing/index.js';

const vitest = { describe, it, afterEach };

describeTaskStoreContract(
  'InMemoryTaskStore',
  {
    // The contract checks the store's own capacity with one caller: its share is the whole store here.
    create: (limits) => new InMemoryTaskStore({ ...limits, maxTasksPerOwner: limits.maxTasks }),
  },
  vitest,
);

describeTaskEventBusContract(
  'in-memory bus',
  {
    create() {
      const backend = createInMemoryTaskEventBackend();
      return { connect: () => createInMemoryTaskEventBus({ backend }) };
    },
  },
  vitest,
);

describePushOutboxContract('in-memory push outbox', { create: () => createInMemoryPushOutbox() }, vitest);

describeTaskAdmissionContract('InMemoryTaskStore', { create: (limits) => new InMemoryTaskStore(limits) }, vitest);
