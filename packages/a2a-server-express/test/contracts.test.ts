import { afterEach, describe, it } from 'vitest';
import { createInMemoryTaskEventBackend, createInMemoryTaskEventBus, InMemoryTaskStore } from '../src/index.js';
import { describeTaskEventBusContract, describeTaskStoreContract } from '../src/testing/index.js';

const vitest = { describe, it, afterEach };

describeTaskStoreContract('InMemoryTaskStore', { create: (limits) => new InMemoryTaskStore(limits) }, vitest);

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
