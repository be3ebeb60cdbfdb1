import type { ContractTestApi } from './contract-api.js';
import { storeFixture, type TaskStoreContractOptions } from './task-store/fixture.js';
import { revisionContract } from './task-store/revisions.js';
import { isolationContract } from './task-store/isolation.js';
import { lifetimeContract } from './task-store/lifetime.js';
import { listingContract } from './task-store/listing.js';
import { pushAndSendKeyContract } from './task-store/push-and-send-keys.js';

export type { TaskStoreContractLimits, TaskStoreContractOptions } from './task-store/fixture.js';

/**
 * The `TaskStore` contract: compare-and-set revisions, copies, tenant and owner isolation, TTL of
 * terminal tasks, capacity, ListTasks pagination, push configs and SendMessage keys. Every
 * implementation runs it (`InMemoryTaskStore` in this package, the Redis store in `@a2aplane/a2a-redis`).
 */
export function describeTaskStoreContract(name: string, options: TaskStoreContractOptions, t: ContractTestApi): void {
  const fixture = storeFixture(options);
  t.describe(`TaskStore contract: ${name}`, () => {
    t.afterEach(async () => {
      for (const store of fixture.made.splice(0)) await options.dispose?.(store);
    });
    revisionContract(t, fixture);
    isolationContract(t, fixture);
    lifetimeContract(t, fixture);
    listingContract(t, fixture);
    pushAndSendKeyContract(t, fixture);
  });
}
